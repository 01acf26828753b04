// The service worker: keeps the client's files so that the page opens without the network
// (playing itself needs the server).  The server serves it at /sw.js behind a first line
// `self.BUILD = {version, base, files}`: the client's version, the versioned folder its
// files are served from (/s/BUILD/) and their names.  A new build is a new worker: it
// fetches the new files, takes over the open pages, and drops the old build's cache.
const { version, base, files } = self.BUILD;
const CACHE = `baohuang-${version}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(['/', ...files.map((name) => base + name)]))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys
      .filter((key) => key.startsWith('baohuang-') && key !== CACHE)
      .map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(base)) {
    // a versioned file never changes: the kept copy, else the network's
    event.respondWith(caches.open(CACHE)
      .then((cache) => cache.match(request))
      .then((kept) => kept || fetch(request)));
  } else if (request.mode === 'navigate' && (url.pathname === '/' || url.pathname === '/index.html')) {
    // the page: the network's (it may name a newer build), the kept copy offline
    event.respondWith(fetch(request).catch(() => caches.open(CACHE)
      .then((cache) => cache.match('/'))
      .then((kept) => kept || Response.error())));
  }
  // the API, other pages and files: the network, as without a worker
});
