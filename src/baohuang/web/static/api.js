// HTTP API calls (JSON).  Errors become ApiError with the server's message.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;   // seconds to wait, when the server said (Retry-After)
  }
}

export async function api(method, path, body) {
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, 'network', String(err));
  }
  let data = null;
  const text = await res.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { message: text };
    }
  }
  if (!res.ok) {
    const err = (data && (data.error || data)) || {};
    const wait = Number.parseInt(res.headers.get('Retry-After') || '', 10);
    throw new ApiError(res.status, err.code,
      err.message || err.detail || (typeof err === 'string' ? err : ''),
      Number.isFinite(wait) ? wait : null);
  }
  return data;
}

export const get = (path) => api('GET', path);
export const post = (path, body) => api('POST', path, body === undefined ? {} : body);
