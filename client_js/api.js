// The one way the pages ask the server's JSON routes (docs/protocol.md) and keep the session
// token: `api` sends the token where a route needs it, reads the answer and turns a refusal
// into an Error carrying the server's own message and `code`, so every page words a failure
// the same way.

const TOKEN_KEY = "browne-games.token";

/** The session token this browser keeps, or null before the first visit. */
function sessionToken() {
  return localStorage.getItem(TOKEN_KEY);
}

function keepSessionToken(token) {
  localStorage.setItem(TOKEN_KEY, token);
}

function forgetSessionToken() {
  localStorage.removeItem(TOKEN_KEY);
}

/**
 * Asks `path` and returns its JSON answer, or throws an Error with the server's message and
 * `code` ("error" when the answer names none). A `body` is sent as JSON (POST unless `method`
 * says otherwise); `signed` sends the session token as the bearer.
 */
async function api(path, { method = undefined, body = undefined, signed = false } = {}) {
  const init = { method: method ?? (body === undefined ? "GET" : "POST"), headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = body === null ? "" : JSON.stringify(body);
  }
  if (signed) init.headers.Authorization = `Bearer ${sessionToken() ?? ""}`;
  const response = await fetch(path, init);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw Object.assign(new Error(answer.message ?? `the server answered ${response.status}`), { code: answer.code ?? "error", status: response.status });
  }
  return answer;
}

export { api, forgetSessionToken, keepSessionToken, sessionToken };
