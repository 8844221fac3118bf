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
const live = document.body.dataset.live;
if (live && window.EventSource) {
  const events = new EventSource(live);
  events.addEventListener("changed", () => {
    events.close();
    window.location.reload();
  });
}
