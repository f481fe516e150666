// The vents screen: the ledger newest first, filtered by status and
// topic; reply, dismiss and delete, each conditional on the revision
// shown, a conflict shown as "changed elsewhere" and the vent reloaded.
import { api } from './api.js';
import { el, on, when } from './dom.js';

const PAGE = 50;

export async function ventsScreen(view, params) {
  const status = params.get('status') || 'open';
  const topic = params.get('topic') || '';
  const st = el('select', { id: 'vent-status', 'aria-label': 'status' },
    ...['open', 'acknowledged', 'resolved', 'dismissed', 'all'].map(v => el('option', { value: v }, v)));
  st.value = status;
  const tp = el('select', { id: 'vent-topic', 'aria-label': 'topic' },
    el('option', { value: '' }, 'any topic'), ...['harness', 'workflow', 'bug', 'user', 'other'].map(v => el('option', { value: v }, v)));
  tp.value = topic;
  const list = el('ul', { class: 'vents', id: 'vents' });
  const more = el('button', { type: 'button', id: 'more', hidden: true }, 'More');
  view.append(el('h1', {}, 'Vents'), el('div', { class: 'filters row' }, st, tp), list, more);
  const refilter = () => {
    const p = new URLSearchParams();
    if (st.value !== 'open') p.set('status', st.value);
    if (tp.value) p.set('topic', tp.value);
    location.hash = '#/vents' + (p.toString() ? '?' + p : '');
  };
  on(st, 'change', refilter);
  on(tp, 'change', refilter);

  let cursor = '';
  const shown = v => (status === 'all' || v.status === status) && (!topic || v.topic === topic);
  const load = async () => {
    // Filters apply to each page as it comes: a page may show fewer.
    const p = new URLSearchParams({ limit: String(PAGE) });
    if (cursor) p.set('cursor', cursor);
    const r = await api('GET', `/extensions/paperclips/items?${p}`);
    for (const it of r.body.items) if (shown(it.value)) list.append(ventNode(it.value));
    cursor = r.body.next || '';
    more.hidden = !cursor;
    if (!list.children.length && !cursor) list.append(el('li', { class: 'dim empty' }, 'No vents.'));
  };
  on(more, 'click', () => load());
  await load();
  view.dataset.state = 'ready';
  return {};
}

function ventNode(v) {
  const node = el('li', { class: `vent ${v.status}`, dataset: { id: v.id, status: v.status, revision: String(v.revision) } });
  fillVent(node, v);
  return node;
}

function fillVent(node, v, note) {
  node.className = `vent ${v.status}`;
  node.dataset.status = v.status;
  node.dataset.revision = String(v.revision);
  const reply = el('textarea', { class: 'reply-text', rows: 2, placeholder: 'Reply: it reaches the session that filed it', 'aria-label': 'reply' });
  const form = el('form', { class: 'reply' }, reply,
    el('div', { class: 'row' }, el('button', { type: 'submit', class: 'reply-send' }, 'Reply'),
      el('button', { type: 'button', class: 'quiet dismiss' }, 'Dismiss'),
      el('button', { type: 'button', class: 'quiet delete' }, 'Delete')));
  const session = v.session_id ? el('a', { href: `#/s/${v.session_id}` }, v.session_name || v.session_title || v.session_id) : el('span', {}, 'no session');
  node.replaceChildren(
    el('div', { class: 'row' }, el('strong', { class: 'vent-title' }, v.title), el('span', { class: 'badge' }, v.topic), el('span', { class: 'badge status' }, v.status)),
    el('div', { class: 'row meta dim' }, session, el('span', {}, v.workspace), el('span', {}, when(v.created_at))),
    el('div', { class: 'pre' }, v.message),
    v.suggestion ? el('div', { class: 'pre dim' }, 'suggestion: ' + v.suggestion) : null,
    v.reply ? el('div', { class: 'pre given-reply' }, 'reply: ' + v.reply) : null,
    v.resolution ? el('div', { class: 'pre ok' }, 'resolved: ' + v.resolution) : null,
    note ? el('div', { class: `vent-note ${note.kind}` }, note.text) : null,
    form);
  const change = async (method, body, done) => {
    const path = `/extensions/paperclips/items/${encodeURIComponent(v.id)}`;
    try {
      const r = await api(method, path, body, { 'If-Match': `"${v.revision}"` });
      done(r.body);
    } catch (err) {
      if (err.status === 412 || err.status === 409) {
        // Changed elsewhere: show it as it is now.
        try {
          const now = await api('GET', path);
          fillVent(node, now.body.value, { kind: 'conflict', text: 'changed elsewhere: this is the vent as it is now; nothing was sent' });
        } catch (e2) {
          if (e2.status === 404) { node.replaceChildren(el('div', { class: 'vent-note conflict' }, 'changed elsewhere: this vent was deleted')); return; }
          fillVent(node, v, { kind: 'fail', text: e2.message });
        }
        return;
      }
      fillVent(node, v, { kind: 'fail', text: err.message });
    }
  };
  on(form, 'submit', e => {
    e.preventDefault();
    if (!reply.value.trim()) return;
    change('PATCH', { reply: reply.value }, r => {
      const state = r.notification.state === 'queued' ? 'reply sent: the session reads it on its next turn' : `reply kept (${r.notification.state})`;
      fillVent(node, r.resource.value, { kind: 'ok', text: state });
    });
  });
  on(form.querySelector('.dismiss'), 'click', () => change('PATCH', { status: 'dismissed' }, r => fillVent(node, r.resource.value, { kind: 'ok', text: 'dismissed' })));
  on(form.querySelector('.delete'), 'click', () => change('DELETE', undefined, () => node.remove()));
}
