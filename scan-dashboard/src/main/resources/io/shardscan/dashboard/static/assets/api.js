// The dashboard's JSON API, relative to the page (scan.dashboard.path + "/").
// Writes carry the X-Scan-Dashboard header (the dashboard's CSRF check) and, when Spring Security's
// cookie CSRF repository set an XSRF-TOKEN cookie, its token as X-XSRF-TOKEN.

function csrfHeaders() {
  const headers = { 'Content-Type': 'application/json', 'X-Scan-Dashboard': '1' };
  const cookie = document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN='));
  if (cookie) headers['X-XSRF-TOKEN'] = decodeURIComponent(cookie.substring('XSRF-TOKEN='.length));
  return headers;
}

async function answer(response) {
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = { message: text }; }
  if (!response.ok) {
    const message = body && body.message ? body.message : response.status + ' ' + response.statusText;
    throw new Error(message);
  }
  return body;
}

export async function get(path) {
  return answer(await fetch('api/' + path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }));
}

export async function post(path, body) {
  return answer(await fetch('api/' + path, {
    method: 'POST', headers: csrfHeaders(), credentials: 'same-origin', body: JSON.stringify(body || {})
  }));
}

export const task = name => 'tasks/' + encodeURIComponent(name);
