// tara-bot's web companion: stepping through a game with the keys, and live pages.
// The pages work without it; it only adds what a script can.
"use strict";

// ← → step back and forward, Home and End jump to the start and the end: the page's own
// links (so the address names the position shown, and the browser's Back works).
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const step = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[e.key];
  if (!step) return;
  const link = document.querySelector(`a[data-step="${step}"]`);
  if (link) {
    e.preventDefault();
    link.click();
  }
});

// A live page (a game in progress) reloads when its game changes: a move, a takeback, the end.
// Its stream closes when the page is left, so that pages left behind (kept by the browser to
// go back to) do not hold the few connections a browser opens to one site; a page brought
// back opens it again.
const live = document.body.dataset.live;
let events = null;
function listen() {
  if (!live || !window.EventSource || events) return;
  events = new EventSource(live);
  events.addEventListener("changed", () => {
    events.close();
    window.location.reload();
  });
}
window.addEventListener("pagehide", () => {
  if (events) events.close();
  events = null;
});
window.addEventListener("pageshow", (e) => {
  if (e.persisted) window.location.reload();
});
listen();
