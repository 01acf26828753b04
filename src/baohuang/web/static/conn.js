// The table's WebSocket: join, reconnect with the last version, ping.
//
// handlers: {message(msg), status(state)} where state is 'open' | 'reconnecting'.
// The owner keeps `version` up to date (the version of the last update it has applied).

export class TableConnection {
  constructor(tableId, role, handlers) {
    this.tableId = tableId;
    this.role = role;
    this.handlers = handlers;
    this.version = null;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.timer = null;
    this.pinger = null;
    this.queue = [];
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/ws`;
  }

  connect() {
    if (this.closed) return;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      ws.send(JSON.stringify(this.joinMessage()));
      for (const msg of this.queue.splice(0)) ws.send(JSON.stringify(msg));
      this.handlers.status('open');
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: 'ping' }), 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.handlers.message(msg);
    };
    ws.onclose = () => {
      clearInterval(this.pinger);
      if (this.ws !== ws || this.closed) return;
      this.handlers.status('reconnecting');
      const delay = Math.min(4000, 500 * 2 ** this.retry);
      this.retry += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
    ws.onerror = () => ws.close();
  }

  joinMessage() {
    const join = { type: 'join', table: this.tableId, as: this.role, hints: true };
    if (this.version !== null) join.version = this.version;
    return join;
  }

  // Join again after `delay` ms (a cluster's table being taken over by another node:
  // docs/cluster.md); the version kept makes it a resync.
  rejoin(delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.closed) return;
      if (this.ws && this.ws.readyState === WebSocket.OPEN) {
        this.ws.send(JSON.stringify(this.joinMessage()));
      } else {
        this.connect();
      }
    }, delay);
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else if (msg.type !== 'ping') this.queue.push(msg);
  }

  resync() {
    this.send({ type: 'resync', version: this.version ?? 0 });
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
  }
}
