// The daemon's API as the page uses it: JSON in and out, the login
// cookie sent by the browser (never a token), and a 401 turning the page
// into its logged-out notice.

export class APIError extends Error {
  constructor(status, body) {
    super((body && body.error) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.body = body;
  }
}

let onLoggedOut = () => {};

// whenLoggedOut sets what happens when the daemon says the login ended.
export function whenLoggedOut(f) { onLoggedOut = f; }

// api sends a request and returns {body, headers}. Writes always carry a
// JSON body: the daemon refuses cookie writes without one.
export async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers }, credentials: 'same-origin', cache: 'no-store' };
  if (method !== 'GET' && method !== 'HEAD') {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const res = await fetch(path, init);
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = { error: text }; }
  }
  if (res.status === 401) onLoggedOut();
  if (!res.ok) throw new APIError(res.status, data);
  return { body: data, headers: res.headers };
}

export const get = (path, headers) => api('GET', path, undefined, headers).then(r => r.body);
export const post = (path, body) => api('POST', path, body).then(r => r.body);
