// One transcript item, shown: what a durable event (or a history item,
// converted) looks like on the page. Every element of a stored item
// carries its seq as data-seq.
import { el, on, when } from './dom.js';
import { fill, fence } from './render.js';

// fromHistory converts a /history item into the event the stream sends
// for it; null for items the stream does not show.
export function fromHistory(h) {
  const base = { seq: h.seq, timestamp: h.timestamp };
  switch (h.kind) {
    case 'user': return { ...base, type: 'user', text: h.text, source: h.source, image: h.image };
    case 'assistant': return { ...base, type: 'message', text: h.text };
    case 'reasoning': return { ...base, type: 'thinking', text: h.text };
    case 'tool_call': {
      let code = '';
      try { code = JSON.parse(h.arguments || '{}').code || ''; } catch { code = h.arguments || ''; }
      return { ...base, type: 'tool_call', call_id: h.call_id, name: h.tool && h.tool.name, code };
    }
    case 'tool_result': {
      const ev = { ...base, type: 'tool', call_id: h.call_id, name: h.tool && h.tool.name };
      for (const part of h.content || []) {
        if (part.field === 'result') ev.result = part.value;
        else if (part.field === 'trace') { try { ev.trace = JSON.parse(part.value); } catch { /* shown without */ } }
        else if (part.kind === 'text') ev.result = JSON.stringify({ status: 'ok', output: part.text });
      }
      return ev;
    }
    case 'error': return { ...base, type: 'error', text: h.text };
    case 'turn': return { ...base, type: 'turn', status: h.text };
    case 'note': return { ...base, type: 'note', text: h.text };
    case 'compaction': return { ...base, type: 'compaction', summary: h.summary, items: h.items, tokens_before: h.tokens_before, tokens_after: h.tokens_after };
  }
  return null;
}

// forkButton offers a fork of the session at seq.
function forkButton(seq) {
  return el('button', { type: 'button', class: 'fork quiet', title: 'Fork the session from here', dataset: { fork: String(seq) } }, 'fork');
}

function head(label, ev, cls) {
  return el('div', { class: `head ${cls || ''}` }, el('span', { class: 'who' }, label), el('span', { class: 'dim time' }, when(ev.timestamp)), forkButton(ev.seq));
}

// cellResult decodes a tool event's result.
export function cellResult(ev) {
  if (!ev.result) return { status: ev.status || '' };
  try { return JSON.parse(ev.result); } catch { return { status: ev.status || '', output: ev.result }; }
}

// shownImage is image n of the item at seq of session sid, fetched from
// the daemon (the only place the page's policy lets images come from);
// it says data-loaded once the browser has it, or failed.
function shownImage(sid, seq, n, meta, label) {
  const text = `${label} ${meta.width}×${meta.height}, ${meta.mimeType}`;
  const img = el('img', {
    class: 'shown-image', alt: text, title: text, loading: 'lazy', decoding: 'async',
    width: meta.width || undefined, height: meta.height || undefined,
    src: `/sessions/${encodeURIComponent(sid)}/items/${seq}/images/${n}`, dataset: { loaded: 'false' },
  });
  on(img, 'load', () => { img.dataset.loaded = 'true'; });
  on(img, 'error', () => { img.dataset.loaded = 'failed'; });
  return el('figure', { class: 'image' }, img, el('figcaption', { class: 'dim image-meta' }, text));
}

// itemNode returns the element of a durable event of session sid, or
// null for events shown inside another's (a tool result joins its call's
// cell).
export function itemNode(ev, sid) {
  const seq = String(ev.seq);
  switch (ev.type) {
    case 'user': {
      const restart = ev.source === 'daemon restart';
      const node = el('li', { class: `item user${ev.source ? ' from-albedo' : ''}${restart ? ' restart' : ''}`, dataset: { seq, type: 'user', source: ev.source || '' } },
        head(ev.source ? `albedo (${ev.source})` : 'you', ev),
        el('div', { class: 'text pre' }, ev.text || ''));
      if (ev.image) node.append(shownImage(sid, ev.seq, 0, ev.image, 'image'));
      return node;
    }
    case 'message': {
      const body = el('div', { class: 'answer markdown' });
      fill(body, ev.text || '');
      const node = el('li', { class: `item message${ev.phase === 'commentary' ? ' commentary' : ''}`, dataset: { seq, type: 'message' } }, head('albedo', ev), body);
      if (ev.notice) node.append(el('div', { class: 'warn' }, ev.notice));
      return node;
    }
    case 'thinking':
      return el('li', { class: 'item thinking', dataset: { seq, type: 'thinking' } },
        el('details', {}, el('summary', {}, 'thinking'), el('div', { class: 'text pre dim' }, ev.text || '')));
    case 'tool_call': {
      const code = el('div', { class: 'code' });
      fill(code, fence(ev.code || '', 'python'));
      return el('li', { class: 'item cell', dataset: { seq, type: 'tool_call', call: ev.call_id || '', status: 'running' } },
        head(`${ev.name || 'python'} cell`, ev, 'cell-head'), code,
        el('pre', { class: 'live-output', hidden: true }),
        el('div', { class: 'status dim' }, 'running…'));
    }
    case 'tool':
      return resultNode(ev, sid);
    case 'error':
      return el('li', { class: 'item error', dataset: { seq, type: 'error' } }, el('div', { class: 'fail pre' }, ev.text || 'error'));
    case 'turn': {
      const usage = ev.usage ? ` · ${ev.usage.input_tokens ?? '?'} in, ${ev.usage.output_tokens ?? '?'} out` : '';
      return el('li', { class: `item turn ${ev.status || ''}`, dataset: { seq, type: 'turn', status: ev.status || '' } }, el('span', { class: 'dim' }, `turn ${ev.status || 'ended'}${usage}`));
    }
    case 'note':
      return el('li', { class: 'item note', dataset: { seq, type: 'note' } }, el('span', { class: 'dim' }, `${ev.name ? ev.name + ': ' : ''}${ev.text || ''}`));
    case 'compaction':
      return el('li', { class: 'item compaction', dataset: { seq, type: 'compaction' } },
        el('details', {}, el('summary', {}, `earlier conversation summarised (${ev.items || 0} items, ~${ev.tokens_before || 0} → ~${ev.tokens_after || 0} tokens)`),
          el('div', { class: 'text pre dim' }, ev.summary || '')));
  }
  return el('li', { class: 'item other', dataset: { seq, type: ev.type } }, el('span', { class: 'dim' }, ev.text || ev.type));
}

// resultNode is the result of a cell of session sid: its status,
// duration, output, value, error, trace marks and images.
function resultNode(ev, sid) {
  const r = cellResult(ev);
  const status = r.status || ev.status || 'ok';
  const node = el('div', { class: `result ${status}`, dataset: { seq: String(ev.seq), type: 'tool', status } });
  const dur = r.duration_ms ? ` · ${(r.duration_ms / 1000).toFixed(1)} s` : '';
  node.append(el('div', { class: `status ${status === 'ok' ? 'ok' : 'fail'}` }, `${status}${dur}`));
  if (r.output) node.append(el('pre', { class: 'output' }, r.output));
  if (r.value) node.append(el('pre', { class: 'value' }, '= ' + r.value));
  if (r.error) node.append(el('pre', { class: 'fail output' }, r.error));
  for (const note of r.notes || []) node.append(el('div', { class: 'dim' }, note));
  (r.images || []).forEach((img, n) => node.append(shownImage(sid, ev.seq, n, img, 'image shown:')));
  const trace = ev.trace;
  if (trace) {
    const marks = [];
    for (const a of trace.activities || []) marks.push(el('span', { class: 'mark read' }, `${a.kind} ${a.target || ''}`));
    for (const c of trace.changes || []) marks.push(el('span', { class: 'mark change' }, `changed ${c.path}`));
    if (marks.length) node.append(el('div', { class: 'trace' }, marks));
  }
  return node;
}

// attachResult puts a result of session sid into its call's cell, or
// returns a cell of its own when the call is not shown.
export function attachResult(list, ev, sid) {
  const node = resultNode(ev, sid);
  const cells = list.querySelectorAll('li.cell');
  for (const cell of cells) {
    if (cell.dataset.call === (ev.call_id || '') && !cell.querySelector('.result')) {
      cell.querySelector('.live-output').hidden = true;
      cell.querySelector(':scope > .status').remove();
      cell.append(node);
      cell.dataset.status = node.dataset.status;
      return null;
    }
  }
  return el('li', { class: 'item cell orphan', dataset: { type: 'tool_call', status: node.dataset.status, orphan: ev.call_id || '' } }, node);
}
