// Telling a player it is their move when they are not looking: the tab's title, a browser
// notification while a tab of the site is open in the background, and Web Push when none is
// (the service worker sw.js shows what the server pushes).  Each can be turned off; the
// choices for the first two are kept in localStorage, the third is this browser's push
// subscription, kept by the server (POST/DELETE /api/push/subscriptions).
// Imports api.js (the server's routes).

import { api } from "./api.js";

const PREFS_KEY = "browne-games.notify";

/** This browser's choices: {title, tab}, both on unless turned off. */
function preferences() {
  let stored = {};
  try {
    stored = JSON.parse(localStorage.getItem(PREFS_KEY) ?? "{}") ?? {};
  } catch {
    stored = {};
  }
  return { title: stored.title !== false, tab: stored.tab !== false };
}

function choose(name, on) {
  localStorage.setItem(PREFS_KEY, JSON.stringify({ ...preferences(), [name]: on }));
}

function notificationsAllowed() {
  return typeof Notification !== "undefined" && Notification.permission === "granted";
}

/** Shows {title, body, url, tag} as a browser notification, if allowed and chosen; clicking it
 * brings the tab to the front. */
async function notifyInTab(notice) {
  if (!preferences().tab || !notificationsAllowed()) return;
  const options = { body: notice.body, tag: notice.tag, renotify: true, data: { url: notice.url } };
  const registration = await navigator.serviceWorker?.getRegistration?.("/");
  if (registration !== undefined && registration !== null) {
    // A worker still installing cannot show it yet (showNotification would refuse it): the
    // notice waits until the worker is active, which is soon.
    const active = registration.active !== null ? registration : await navigator.serviceWorker.ready;
    await active.showNotification(notice.title, options);
    return;
  }
  const shown = new Notification(notice.title, options);
  shown.addEventListener("click", () => {
    window.focus();
    location.hash = new URL(notice.url, location.href).hash;
    shown.close();
  });
}

function pushSupported() {
  return "serviceWorker" in navigator && typeof PushManager !== "undefined" && typeof Notification !== "undefined";
}

/** The URL-safe base64 of the server's VAPID key as the bytes PushManager takes. */
function keyBytes(text) {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (character) => character.charCodeAt(0));
}

function sameKey(buffer, text) {
  if (buffer === null || buffer === undefined) return false;
  const bytes = new Uint8Array(buffer);
  const wanted = keyBytes(text);
  return bytes.length === wanted.length && bytes.every((byte, index) => byte === wanted[index]);
}

function subscriptionsRoute(method, body) {
  return api("/api/push/subscriptions", { method, body, signed: true });
}

/** This browser's push subscription, or null. */
async function currentSubscription() {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/** Asks the browser for a push subscription to this server's key and gives it to the server. */
async function turnPushOn() {
  if (!pushSupported()) throw new Error("this browser cannot receive notifications from sites");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    throw new Error("your browser blocks notifications from this site: allow them in its site settings, then try again");
  }
  await navigator.serviceWorker.register("/sw.js");
  const registration = await navigator.serviceWorker.ready;
  const { key } = await api("/api/push/key");
  let subscription = await registration.pushManager.getSubscription();
  if (subscription !== null && !sameKey(subscription.options?.applicationServerKey, key)) {
    await subscription.unsubscribe(); // made for another server key: useless now
    subscription = null;
  }
  if (subscription === null) {
    try {
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    } catch (error) {
      throw new Error(`the browser's push service did not answer (${error.message})`);
    }
  }
  await subscriptionsRoute("POST", subscription.toJSON());
}

async function turnPushOff() {
  const subscription = await currentSubscription();
  if (subscription === null) return;
  await subscriptionsRoute("DELETE", { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

function checkbox(name, label, checked) {
  const input = document.createElement("input");
  input.type = "checkbox";
  input.name = name;
  input.checked = checked;
  const line = document.createElement("label");
  line.className = `notify-${name}`;
  line.append(input, ` ${label}`);
  return [line, input];
}

/** The "Notifications" settings: three switches and a line saying how it went. */
function notificationSettings() {
  const prefs = preferences();
  const panel = document.createElement("details");
  panel.className = "notify-settings";
  const summary = document.createElement("summary");
  summary.textContent = "Notifications";
  const status = document.createElement("p");
  status.className = "notify-status";
  status.setAttribute("aria-live", "polite");
  const [titleLine, title] = checkbox("title", "Mark the tab when it is my move", prefs.title);
  const [tabLine, tab] = checkbox("tab", "Notify me while the site is open in another tab", prefs.tab);
  const [pushLine, push] = checkbox("push", "Notify me on this device when the site is closed", false);
  title.addEventListener("change", () => choose("title", title.checked));
  tab.addEventListener("change", async () => {
    choose("tab", tab.checked);
    if (tab.checked && typeof Notification !== "undefined" && Notification.permission === "default") {
      await Notification.requestPermission();
    }
    status.textContent = tab.checked && !notificationsAllowed() ? "Your browser blocks notifications from this site: allow them in its site settings." : "";
  });
  push.addEventListener("change", async () => {
    push.disabled = true;
    status.textContent = push.checked ? "Turning on…" : "Turning off…";
    try {
      if (push.checked) await turnPushOn();
      else await turnPushOff();
      status.textContent = push.checked ? "On: this device will tell you when it is your move or a game ends." : "Off for this device.";
    } catch (error) {
      push.checked = !push.checked;
      status.textContent = `Could not turn ${push.checked ? "off" : "on"}: ${error.message}.`;
    } finally {
      push.disabled = !pushSupported();
    }
  });
  if (!pushSupported()) {
    push.disabled = true;
    pushLine.title = "This browser cannot receive notifications from sites";
  } else {
    currentSubscription().then((subscription) => (push.checked = subscription !== null), () => {});
  }
  panel.append(summary, titleLine, tabLine, pushLine, status);
  return panel;
}

export { notificationSettings, notifyInTab, preferences };
