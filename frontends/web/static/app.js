// The page's entry: the router between its screens (#/ the sessions,
// #/s/ID a session, #/vents the vents), the logged-out notice and the
// log-out button.
import { post, whenLoggedOut } from './api.js';
import { on } from './dom.js';
import { sessionsScreen } from './sessions.js';

const view = document.getElementById('view');
let current = null;

function loggedOut() {
  if (current && current.close) current.close();
  current = null;
  view.hidden = true;
  document.getElementById('logged-out').hidden = false;
  document.body.dataset.state = 'logged-out';
}

async function route() {
  if (current && current.close) current.close();
  current = null;
  view.replaceChildren();
  view.dataset.state = 'loading';
  current = await sessionsScreen(view);
}

whenLoggedOut(loggedOut);
on(document.getElementById('logout'), 'click', async () => {
  try { await post('/web/logout'); } finally { loggedOut(); }
});
window.addEventListener('hashchange', route);
route();
