// The console's JSON API: same-origin, with the header and JSON body every state-changing call must carry.

const API = '/review/api';

let signedOut = () => undefined;
/** What a 401 does to the page (app.js: the sign-in form, the last session's screen forgotten). */
export function onSignedOut(handler) {
  signedOut = handler;
}

export async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (method !== 'GET') {
    init.headers['content-type'] = 'application/json';
    init.headers['x-formguard-review'] = '1';
    init.body = JSON.stringify(body ?? {});
  }
  const res = await fetch(API + path, init);
  let data = {};
  try {
    data = await res.json();
  } catch {
    /* empty body */
  }
  if (res.status === 401 && path !== '/session') {
    signedOut();
  }
  if (!res.ok) throw Object.assign(new Error(data.error || 'Request failed'), { status: res.status, data });
  return data;
}
