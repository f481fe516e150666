// The sessions screen.
import { get } from './api.js';
import { el, when } from './dom.js';

export async function sessionsScreen(view) {
  const list = el('ul', { class: 'sessions', id: 'sessions' });
  view.append(el('h1', {}, 'Sessions'), list);
  const sessions = await get('/sessions?limit=50');
  for (const s of sessions) {
    list.append(el('li', { dataset: { id: s.id } }, el('a', { href: `#/s/${s.id}` }, s.name || s.title), ' ', el('span', { class: 'dim' }, when(s.updated_at))));
  }
  view.dataset.state = 'ready';
  return {};
}
