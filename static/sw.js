// The service worker: shows a Web Push notification, and a tap on it opens its table.
// Served at /sw.js so that its scope is the whole site. It caches nothing and handles no fetch:
// the page works exactly as without it. A notification's payload is the server's rendered
// notice, {title, body, url, tag} (app/push/notices.py); the url is always a page of this site.

const ICON = "/static/favicon.svg";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function sameSitePage(url) {
  return typeof url === "string" && url.startsWith("/") && !url.startsWith("//") ? url : "/";
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Cash Stash";
  const options = {
    body: typeof data.body === "string" ? data.body : "",
    icon: ICON,
    data: { url: sameSitePage(data.url) },
  };
  if (typeof data.tag === "string" && data.tag) {
    options.tag = data.tag;
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

async function openTable(path) {
  const url = new URL(path, self.location.origin).href;
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = tabs.find((tab) => tab.url === url);
  if (open) return open.focus();
  return self.clients.openWindow(url);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTable(sameSitePage(event.notification.data?.url)));
});
