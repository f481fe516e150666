// The sessions screen: search, workspace and archived filters, the
// running badge, usage, paging, and a form making a new session. The rows
// shown are asked for again every REFRESH_MS while the tab is visible, so
// that running badges, usage and names follow the sessions.
import { api, post } from './api.js';
import { el, on, when, tokens } from './dom.js';

const PAGE = 30;
const REFRESH_MS = 2000;

export async function sessionsScreen(view, params) {
  const q = params.get('q') || '';
  const workspace = params.get('workspace') || '';
  const archived = params.get('archived') || '';
  const search = el('input', { type: 'search', id: 'search', name: 'q', value: q, placeholder: 'Search titles, names, ids', 'aria-label': 'search' });
  const ws = el('input', { type: 'text', id: 'workspace-filter', name: 'workspace', value: workspace, placeholder: 'Workspace folder', 'aria-label': 'workspace' });
  const arch = el('select', { id: 'archived', name: 'archived', 'aria-label': 'archived' },
    el('option', { value: '' }, 'active'), el('option', { value: 'true' }, 'archived'), el('option', { value: 'all' }, 'all'));
  arch.value = archived;
  const filters = el('form', { class: 'filters row', id: 'filters' }, search, ws, arch, el('button', { type: 'submit' }, 'Find'));
  const list = el('ul', { class: 'sessions', id: 'sessions' });
  const more = el('button', { type: 'button', id: 'more', hidden: true }, 'More');
  const newWs = el('input', { type: 'text', id: 'new-workspace', placeholder: 'Absolute folder path', required: true, 'aria-label': 'new session workspace' });
  const newForm = el('form', { class: 'new-session row', id: 'new-session' }, newWs, el('button', { type: 'submit' }, 'New session'));
  const notice = el('div', { class: 'notice', id: 'notice', hidden: true });
  view.append(el('h1', {}, 'Sessions'), filters, notice, list, more, el('h2', {}, 'New session'), newForm);

  on(filters, 'submit', e => {
    e.preventDefault();
    const p = new URLSearchParams();
    if (search.value) p.set('q', search.value);
    if (ws.value) p.set('workspace', ws.value);
    if (arch.value) p.set('archived', arch.value);
    location.hash = '#/' + (p.toString() ? '?' + p : '');
  });
  on(arch, 'change', () => filters.requestSubmit());
  on(newForm, 'submit', async e => {
    e.preventDefault();
    try {
      const s = await post('/sessions', { workspace: newWs.value });
      location.hash = `#/s/${s.id}`;
    } catch (err) {
      notice.textContent = err.message;
      notice.hidden = false;
    }
  });

  let cursor = '';
  const load = async () => {
    const p = new URLSearchParams({ limit: String(PAGE) });
    if (q) p.set('q', q);
    if (workspace) p.set('workspace', workspace);
    if (archived) p.set('archived', archived);
    if (cursor) p.set('cursor', cursor);
    const r = await api('GET', `/sessions?${p}`);
    for (const s of r.body) list.append(row(s));
    cursor = r.headers.get('X-Next-Cursor') || '';
    more.hidden = !cursor;
    if (!list.children.length) list.append(el('li', { class: 'dim empty' }, 'No sessions.'));
  };
  on(more, 'click', () => load().catch(err => { notice.textContent = err.message; notice.hidden = false; }));
  await load();
  if (!newWs.value) {
    const first = list.querySelector('li[data-workspace]');
    if (first) newWs.value = first.dataset.workspace;
  }
  view.dataset.state = 'ready';

  // refresh asks for the rows shown again and updates those that changed.
  let timer = null;
  let closed = false;
  let refreshes = 0;
  const refresh = async () => {
    timer = null;
    if (!document.hidden) {
      const p = new URLSearchParams({ limit: String(Math.max(PAGE, list.querySelectorAll('li[data-id]').length)) });
      if (q) p.set('q', q);
      if (workspace) p.set('workspace', workspace);
      if (archived) p.set('archived', archived);
      try {
        const r = await api('GET', `/sessions?${p}`);
        if (closed) return;
        for (const s of r.body) {
          const old = list.querySelector(`li[data-id="${CSS.escape(s.id)}"]`);
          const fresh = row(s);
          if (old && old.dataset.sig !== fresh.dataset.sig) old.replaceWith(fresh);
        }
        list.dataset.refreshed = String(++refreshes);
      } catch { /* asked again next time */ }
    }
    if (!closed) timer = setTimeout(refresh, REFRESH_MS);
  };
  timer = setTimeout(refresh, REFRESH_MS);
  return { close() { closed = true; if (timer) clearTimeout(timer); } };
}

function row(s) {
  const running = s.stage === 'running';
  const u = s.usage || {};
  const sig = JSON.stringify([s.stage, s.name, s.title, s.archived, s.usage, s.updated_at, s.model]);
  return el('li', { class: 'session-row', dataset: { id: s.id, running: String(running), workspace: s.workspace, sig } },
    el('div', { class: 'row' },
      el('a', { href: `#/s/${s.id}`, class: 'title' }, s.name || s.title),
      running ? el('span', { class: 'badge running' }, 'running') : null,
      s.archived ? el('span', { class: 'badge' }, 'archived') : null),
    el('div', { class: 'row meta dim' },
      el('span', { class: 'workspace' }, s.workspace),
      el('span', {}, `${s.provider} · ${s.model}`),
      el('span', {}, u.requests ? `${tokens(u.input_tokens)} in · ${tokens(u.output_tokens)} out` : ''),
      el('span', {}, when(s.updated_at))));
}
