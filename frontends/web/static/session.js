// A session's screen: its last items, older ones on scroll, everything
// new live through one EventSource resumed with its last seq (after a
// drop, a daemon restart, or a hidden tab shown again), the composer,
// interrupt, fork, rename, queued messages, the context figure and the
// sandbox glance.
import { api, get, post, APIError } from './api.js';
import { el, on, tokens } from './dom.js';
import { itemNode, attachResult, fromHistory } from './items.js';
import { imageFromClipboard } from './paste.js';

const TAIL = 50;

export async function sessionScreen(view, id) {
  const s = new SessionView(view, id);
  await s.start();
  return s;
}

class SessionView {
  constructor(view, id) {
    this.view = view;
    this.id = id;
    this.last = 0;          // the seq of the last durable event shown
    this.before = null;     // the oldest seq shown, null when the first is
    this.source = null;     // the EventSource
    this.streaming = {};    // kind -> element of text streaming in
    this.queued = new Map(); // queue_id -> element
    this.closed = false;
    this.statusSeen = 0;    // counts the status events, so that an answer
                            // asked for before one does not undo it
    this.onVisibility = () => this.visibility();
  }

  async start() {
    const detail = await get(`/sessions/${encodeURIComponent(this.id)}?tail=0`);
    this.session = detail.session;
    this.build(detail);
    this.setRunning(detail.running);
    this.glances(detail.glances || []);
    this.context();
    this.open({ tail: TAIL });
    document.addEventListener('visibilitychange', this.onVisibility);
    this.view.dataset.state = 'ready';
  }

  close() {
    this.closed = true;
    document.removeEventListener('visibilitychange', this.onVisibility);
    if (this.source) this.source.close();
    this.source = null;
    if (this.observer) this.observer.disconnect();
  }

  build(detail) {
    const s = detail.session;
    this.title = el('h1', { class: 'title', id: 'title' }, s.name || s.title);
    this.renameButton = el('button', { type: 'button', class: 'quiet', id: 'rename' }, 'rename');
    this.runningBadge = el('span', { class: 'badge running', id: 'running', hidden: true }, 'running');
    this.contextFigure = el('span', { class: 'dim', id: 'context' });
    this.sandbox = el('span', { class: 'dim', id: 'sandbox' });
    this.interruptButton = el('button', { type: 'button', id: 'interrupt', disabled: true }, 'interrupt');
    this.notice = el('div', { class: 'notice', id: 'notice', hidden: true });
    this.older = el('div', { class: 'older dim', id: 'older' }, '');
    this.list = el('ol', { class: 'items', id: 'items' });
    this.live = el('div', { class: 'live', id: 'live' });
    this.queue = el('ul', { class: 'queue', id: 'queue' });
    this.input = el('textarea', { id: 'message', rows: 3, placeholder: 'Message (Ctrl+Enter sends; paste an image to attach it)', 'aria-label': 'message' });
    this.attachment = el('div', { class: 'attachment dim', id: 'attachment', hidden: true });
    this.sendButton = el('button', { type: 'submit', id: 'send' }, 'Send');
    const form = el('form', { class: 'composer', id: 'composer' }, this.attachment, this.input, el('div', { class: 'row' }, this.interruptButton, this.sendButton));
    const top = el('div', { class: 'session-head' },
      el('div', { class: 'row' }, this.title, this.renameButton, this.runningBadge),
      el('div', { class: 'row meta dim' }, el('span', {}, `${s.provider} · ${s.model}`), el('span', { class: 'workspace' }, s.workspace), this.contextFigure, this.sandbox));
    this.root = el('section', { class: 'session', id: 'session', dataset: { id: s.id, running: 'false', stream: 'connecting' } },
      top, this.notice, this.older, this.list, this.live, this.queue, form);
    this.view.append(this.root);

    on(form, 'submit', e => { e.preventDefault(); this.send(); });
    on(this.input, 'keydown', e => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.send(); } });
    on(this.input, 'paste', e => this.paste(e));
    on(this.interruptButton, 'click', () => this.interrupt());
    on(this.renameButton, 'click', () => this.rename());
    on(this.list, 'click', e => {
      const b = e.target.closest('button[data-fork]');
      if (b) this.fork(Number(b.dataset.fork));
    });
    on(this.queue, 'click', e => {
      const b = e.target.closest('button[data-drop]');
      if (b) this.drop(b.dataset.drop);
    });
    this.observer = new IntersectionObserver(entries => {
      if (entries.some(e => e.isIntersecting)) this.loadOlder();
    });
    this.observer.observe(this.older);
  }

  // open opens the stream: after the last seq shown, or the last items.
  open({ tail } = {}) {
    if (this.closed) return;
    const q = this.last > 0 || tail === undefined ? `after=${this.last}` : `tail=${tail}`;
    const src = new EventSource(`/sessions/${encodeURIComponent(this.id)}/stream?${q}`);
    this.source = src;
    this.root.dataset.stream = 'connecting';
    let first = true;
    src.onopen = () => this.hideNotice();
    src.onmessage = m => {
      let batch;
      try { batch = JSON.parse(m.data); } catch { return; }
      if (first) {
        first = false;
        this.snapshot(batch);
      } else {
        for (const ev of batch.events) this.event(ev);
      }
    };
    src.onerror = () => {
      if (this.source !== src) return;
      // A new connection shows deltas from its own start only.
      this.clearStreaming();
      first = true;
      if (src.readyState === EventSource.CLOSED) {
        this.root.dataset.stream = 'closed';
        this.showNotice('The stream ended; opening it again…');
        this.reopen();
      } else {
        this.root.dataset.stream = 'reconnecting';
        this.showNotice('Connection lost; reconnecting…');
      }
    };
  }

  // reopen opens a stream the browser gave up on, once the daemon
  // answers (a 401 ends the login instead).
  async reopen() {
    if (this.source) this.source.close();
    this.source = null;
    try {
      await get(`/sessions/${encodeURIComponent(this.id)}/status`);
    } catch (err) {
      if (err instanceof APIError && (err.status === 401 || err.status === 404)) return;
      setTimeout(() => this.reopen(), 2000);
      return;
    }
    this.open();
  }

  visibility() {
    if (document.hidden) {
      if (this.source) this.source.close();
      this.source = null;
      this.clearStreaming();
      this.root.dataset.stream = 'hidden';
    } else if (!this.source && !this.closed) {
      this.open();
    }
  }

  snapshot(batch) {
    const first = this.last === 0 && batch.before !== undefined;
    if (first) {
      this.before = batch.before;
      this.showOlder();
    }
    for (const ev of batch.events) this.event(ev);
    if (this.last === 0 && batch.events.length === 0) this.root.dataset.empty = 'true';
    // Open: connected, and what the daemon had is shown.
    this.root.dataset.stream = 'open';
    this.refreshRunning();
    this.scrollToEnd();
    // A short list leaves the place older items load from in view.
    if (first && this.before !== null && this.olderInView()) this.loadOlder();
  }

  event(ev) {
    if (ev.seq) {
      if (ev.seq <= this.last) return; // shown already
      this.last = ev.seq;
      this.durable(ev);
      return;
    }
    switch (ev.type) {
      case 'delta': this.delta(ev); break;
      case 'output': this.output(ev); break;
      case 'status':
        if (ev.running !== undefined) {
          this.statusSeen++;
          this.setRunning(ev.running);
        }
        if (ev.window !== undefined || ev.percent !== undefined) this.showContext(ev);
        break;
      case 'queued': this.addQueued(ev); break;
      case 'unqueued': this.removeQueued(ev.queue_id); break;
      case 'overflow': break; // the stream ends; the browser resumes it
      case 'deleted':
        this.close();
        this.showNotice('This session was deleted.');
        this.root.dataset.stream = 'deleted';
        break;
    }
  }

  durable(ev) {
    const atEnd = this.nearEnd();
    if (ev.type === 'message') this.endStreaming('text');
    if (ev.type === 'thinking') this.endStreaming('reasoning');
    if (ev.type === 'tool_call') this.endStreaming('tool_call');
    if (ev.type === 'user' && !ev.source) this.deliverQueued(ev.text);
    if (ev.type === 'turn') this.clearStreaming();
    const node = ev.type === 'tool' ? attachResult(this.list, ev, this.id) : itemNode(ev, this.id);
    if (node) this.list.append(node);
    delete this.root.dataset.empty;
    if (atEnd) this.scrollToEnd();
  }

  delta(ev) {
    if (ev.kind === 'retry') {
      this.showNotice(ev.text || 'retrying');
      return;
    }
    let node = this.streaming[ev.kind];
    if (!node) {
      const label = { text: 'albedo', reasoning: 'thinking', tool_call: 'writing a cell' }[ev.kind] || ev.kind;
      node = el('div', { class: `streaming ${ev.kind}`, dataset: { kind: ev.kind } }, el('div', { class: 'who dim' }, label), el('div', { class: 'text pre' }));
      this.streaming[ev.kind] = node;
      this.live.append(node);
    }
    const atEnd = this.nearEnd();
    node.lastChild.append(ev.text || '');
    if (atEnd) this.scrollToEnd();
  }

  endStreaming(kind) {
    const node = this.streaming[kind];
    if (node) node.remove();
    delete this.streaming[kind];
  }

  clearStreaming() {
    for (const k of Object.keys(this.streaming)) this.endStreaming(k);
  }

  output(ev) {
    const cell = this.list.querySelector(`li.cell[data-seq="${ev.call}"]`);
    if (!cell) return;
    const pre = cell.querySelector('.live-output');
    if (!pre) return;
    const atEnd = this.nearEnd();
    pre.hidden = false;
    pre.append(ev.text || '');
    if (atEnd) this.scrollToEnd();
  }

  addQueued(ev) {
    if (this.queued.has(ev.queue_id)) return;
    const node = el('li', { class: 'queued', dataset: { queue: String(ev.queue_id) } },
      el('span', { class: 'dim' }, 'queued: '), el('span', { class: 'text pre' }, ev.text || ''),
      el('button', { type: 'button', class: 'quiet', dataset: { drop: String(ev.queue_id) } }, 'drop'));
    this.queued.set(ev.queue_id, node);
    this.queue.append(node);
  }

  removeQueued(qid) {
    const node = this.queued.get(qid);
    if (node) node.remove();
    this.queued.delete(qid);
  }

  deliverQueued(text) {
    for (const [qid, node] of this.queued) {
      if (node.querySelector('.text').textContent === text) { this.removeQueued(qid); return; }
    }
  }

  async drop(qid) {
    try {
      await api('DELETE', `/sessions/${encodeURIComponent(this.id)}/queue/${encodeURIComponent(qid)}`);
      this.removeQueued(Number(qid));
    } catch (err) { this.showNotice(err.message); }
  }

  // refreshRunning asks whether a turn runs; a status event that comes
  // while the question is on its way is newer than its answer.
  async refreshRunning() {
    const seen = this.statusSeen;
    try {
      const st = await get(`/sessions/${encodeURIComponent(this.id)}/status`);
      if (seen === this.statusSeen) this.setRunning(st.running);
    } catch { /* the stream says it next */ }
  }

  setRunning(running) {
    this.root.dataset.running = running ? 'true' : 'false';
    this.runningBadge.hidden = !running;
    this.interruptButton.disabled = !running;
  }

  // loadOlder shows the page of items before the oldest shown, and goes
  // on while the place it loads from is still in view (the observer
  // tells only of changes). data-older says "more", "loading" or "none";
  // data-older-pages counts the pages shown.
  async loadOlder() {
    if (this.loadingOlder || this.before === null || this.before === undefined || this.closed) return;
    this.loadingOlder = true;
    this.root.dataset.older = 'loading';
    try {
      const page = await get(`/sessions/${encodeURIComponent(this.id)}/history?before=${this.before}&limit=${TAIL}`);
      if (this.closed) return;
      const height = document.documentElement.scrollHeight;
      const holder = el('ol');
      for (const h of page.items) {
        const ev = fromHistory(h);
        if (!ev) continue;
        const node = ev.type === 'tool' ? attachResult(holder, ev, this.id) : itemNode(ev, this.id);
        if (node) holder.append(node);
      }
      this.joinResults(holder);
      const frag = document.createDocumentFragment();
      frag.append(...holder.childNodes);
      this.list.prepend(frag);
      this.before = page.items.length && page.before !== null && page.items[0].seq > 1 ? page.before : null;
      this.olderPages = (this.olderPages || 0) + 1;
      this.root.dataset.olderPages = String(this.olderPages);
      window.scrollBy(0, document.documentElement.scrollHeight - height);
    } catch (err) {
      this.showNotice(err.message);
    } finally {
      this.loadingOlder = false;
      this.showOlder();
    }
    if (this.before !== null && this.olderInView()) this.loadOlder();
  }

  // joinResults moves the results shown alone at the top of the list (their
  // calls were on an older page) into the calls' cells of holder.
  joinResults(holder) {
    for (const cell of holder.querySelectorAll('li.cell[data-call]')) {
      if (cell.querySelector('.result')) continue;
      const orphan = [...this.list.querySelectorAll('li.cell.orphan')].find(o => o.dataset.orphan === cell.dataset.call);
      if (!orphan) continue;
      const result = orphan.querySelector('.result');
      cell.querySelector('.live-output').hidden = true;
      cell.querySelector(':scope > .status').remove();
      cell.append(result);
      cell.dataset.status = result.dataset.status;
      orphan.remove();
    }
  }

  // showOlder says whether older items are left to load.
  showOlder() {
    const more = this.before !== null && this.before !== undefined;
    this.root.dataset.older = more ? 'more' : 'none';
    this.older.textContent = more ? 'older items load as you scroll up' : '';
  }

  olderInView() {
    const r = this.older.getBoundingClientRect();
    return r.bottom >= 0 && r.top <= window.innerHeight;
  }

  async send() {
    const content = this.input.value;
    if (!content.trim() && !this.image) return;
    const body = { content };
    if (this.image) body.image = this.image;
    this.sendButton.disabled = true;
    const seen = this.statusSeen;
    try {
      const r = await post(`/sessions/${encodeURIComponent(this.id)}/events`, body);
      this.input.value = '';
      this.image = null;
      this.attachment.hidden = true;
      if (!r.queued && seen === this.statusSeen) this.setRunning(true);
    } catch (err) {
      this.showNotice(err.message);
    } finally {
      this.sendButton.disabled = false;
    }
  }

  async paste(e) {
    const image = await imageFromClipboard(e);
    if (!image) return;
    this.image = image;
    this.attachment.hidden = false;
    this.attachment.textContent = `image attached: ${image.width}×${image.height}, ${image.bytes} bytes`;
  }

  async interrupt() {
    const seen = this.statusSeen;
    try {
      const st = await post(`/sessions/${encodeURIComponent(this.id)}/interrupt`);
      if (seen === this.statusSeen) this.setRunning(st.running);
    } catch (err) { this.showNotice(err.message); }
  }

  async fork(seq) {
    try {
      const s = await post(`/sessions/${encodeURIComponent(this.id)}/fork`, { checkpoint: seq });
      location.hash = `#/s/${s.id}`;
    } catch (err) { this.showNotice(err.message); }
  }

  rename() {
    if (this.renaming) return;
    this.renaming = true;
    const input = el('input', { type: 'text', id: 'rename-input', value: this.title.textContent, 'aria-label': 'name' });
    const form = el('form', { class: 'rename row' }, input, el('button', { type: 'submit' }, 'Save'), el('button', { type: 'button', class: 'quiet', id: 'rename-cancel' }, 'Cancel'));
    this.title.replaceWith(form);
    input.focus();
    const done = () => { form.replaceWith(this.title); this.renaming = false; };
    on(form.querySelector('#rename-cancel'), 'click', done);
    on(form, 'submit', async e => {
      e.preventDefault();
      const path = `/sessions/${encodeURIComponent(this.id)}?view=configuration`;
      try {
        const cur = await api('GET', path);
        const r = await api('PATCH', path, { name: input.value }, { 'If-Match': cur.headers.get('ETag') || '' });
        this.title.textContent = r.body.name || r.body.title;
        done();
      } catch (err) { this.showNotice(err.message); }
    });
  }

  async context() {
    try { this.showContext(await get(`/sessions/${encodeURIComponent(this.id)}/context`)); } catch { /* shown without */ }
  }

  showContext(c) {
    if (c.used === undefined || c.used === null) return;
    const pct = c.percent !== undefined && c.percent !== null ? ` (${Math.round(c.percent)}%)` : '';
    this.contextFigure.textContent = `context ${tokens(c.used)}${c.window ? ' / ' + tokens(c.window) : ''}${pct}`;
  }

  glances(list) {
    const sb = list.find(g => g.extension === 'sandbox');
    if (sb) this.sandbox.textContent = `sandbox ${sb.mode}${sb.network ? '' : ', no network'}${sb.kernel ? ', kernel ' + sb.kernel : ''}`;
  }

  showNotice(text) { this.notice.textContent = text; this.notice.hidden = false; }
  hideNotice() { this.notice.hidden = true; }

  nearEnd() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
  }

  scrollToEnd() { window.scrollTo(0, document.documentElement.scrollHeight); }
}
