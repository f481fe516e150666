// Answers rendered to HTML by the daemon (POST /web/render), by the
// console's rules: raw HTML in them comes back as text. Requests made in
// the same moment go as one.
import { post } from './api.js';

let waiting = [];
let scheduled = false;

// rendered resolves to the HTML of a markdown text.
export function rendered(text) {
  return new Promise((resolve, reject) => {
    waiting.push({ text, resolve, reject });
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  });
}

async function flush() {
  scheduled = false;
  const batch = waiting.splice(0, 500);
  if (waiting.length) { scheduled = true; queueMicrotask(flush); }
  try {
    const out = await post('/web/render', { texts: batch.map(w => w.text) });
    batch.forEach((w, i) => w.resolve(out.html[i]));
  } catch (err) {
    batch.forEach(w => w.reject(err));
  }
}

// fill sets node's content to the daemon's HTML of text, the text itself
// until then (or if rendering fails), and marks it data-rendered.
export function fill(node, text) {
  node.textContent = text;
  node.classList.add('plain');
  return rendered(text).then(html => {
    // The daemon's renderer escapes every raw HTML of the text; this is
    // the page's one assignment of HTML.
    node.innerHTML = html;
    node.classList.remove('plain');
    node.dataset.rendered = 'true';
  }, () => { node.dataset.rendered = 'failed'; });
}

// fence returns code as a fenced markdown block of lang.
export function fence(code, lang) {
  let ticks = '```';
  while (code.includes(ticks)) ticks += '`';
  return `${ticks}${lang}\n${code}\n${ticks}`;
}
