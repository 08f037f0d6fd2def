// The service worker: shows the notifications the server pushes (its move, a game's end) when
// no page of the site is open, and opens the game when one is clicked.  A push carries JSON
// {title, body, url, tag}; a newer notice about the same game (tag) replaces the older.  It
// caches nothing: the site is live or it is not.  Imports nothing.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  event.waitUntil(show(event.data === null ? null : event.data.text()));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(open(event.notification.data?.url ?? "/"));
});

/** Shows one pushed notice (always: a browser takes a push that shows nothing for abuse). */
async function show(text) {
  let notice;
  try {
    notice = JSON.parse(text ?? "");
  } catch {
    notice = { title: "Browne's games", body: "Something happened in one of your games.", url: "/", tag: "" };
  }
  await self.registration.showNotification(notice.title, {
    body: notice.body ?? "",
    tag: notice.tag || undefined,
    renotify: Boolean(notice.tag),
    data: { url: notice.url ?? "/" },
  });
}

/** Goes to `url` in a page of the site already open, or opens one. */
async function open(url) {
  const target = new URL(url, self.location.origin).href;
  const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const page = pages.find((candidate) => new URL(candidate.url).origin === self.location.origin);
  if (page === undefined) return self.clients.openWindow(target);
  await page.focus();
  return page.navigate(target);
}
