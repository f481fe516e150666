// The page's entry: the router between its screens (#/ the sessions,
// #/s/ID a session, #/vents the vents), the logged-out notice and the
// log-out button.
import { post, whenLoggedOut } from './api.js';
import { el, on } from './dom.js';
import { sessionsScreen } from './sessions.js';
import { sessionScreen } from './session.js';
import { ventsScreen } from './vents.js';

const view = document.getElementById('view');
let current = null;
let generation = 0;

function loggedOut() {
  if (current && current.close) current.close();
  current = null;
  view.hidden = true;
  document.getElementById('logged-out').hidden = false;
  document.body.dataset.state = 'logged-out';
}

async function route() {
  const mine = ++generation;
  if (current && current.close) current.close();
  current = null;
  view.replaceChildren();
  view.dataset.state = 'loading';
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const params = new URLSearchParams(query || '');
  document.querySelectorAll('.bar nav a').forEach(a => a.classList.toggle('current', false));
  try {
    let screen;
    if (path.startsWith('/s/')) {
      screen = await sessionScreen(view, decodeURIComponent(path.slice(3)));
    } else if (path === '/vents') {
      document.getElementById('nav-vents').classList.add('current');
      screen = await ventsScreen(view, params);
    } else {
      document.getElementById('nav-sessions').classList.add('current');
      screen = await sessionsScreen(view, params);
    }
    if (mine !== generation) {
      if (screen && screen.close) screen.close();
      return;
    }
    current = screen;
  } catch (err) {
    if (mine !== generation || err.status === 401) return;
    view.replaceChildren(el('div', { class: 'notice', id: 'notice' }, err.message));
    view.dataset.state = 'failed';
  }
}

whenLoggedOut(loggedOut);
on(document.getElementById('logout'), 'click', async () => {
  try { await post('/web/logout'); } finally { loggedOut(); }
});
window.addEventListener('hashchange', route);
route();
