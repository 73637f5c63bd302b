// One way to write a moment on every page, in the reader's own time zone: every
// <time data-when="minutes|seconds|date" datetime="…Z"> (written by the {% when %} template tag,
// in UTC for a browser without scripts) becomes "2026-11-29 05:42", and the page's foot names
// the zone once. gridalignWhen.format(iso, precision) does the same for scripts (adjudicate.js).
(function () {
  "use strict";
  const pad = (n) => String(n).padStart(2, "0");

  function format(iso, precision = "minutes") {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return String(iso);
    const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    if (precision === "date") return day;
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
    return `${day} ${time}${precision === "seconds" ? `:${pad(d.getSeconds())}` : ""}`;
  }

  function zone() {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "your time zone";
  }

  function rewrite(root) {
    const times = root.querySelectorAll("time[data-when]");
    for (const t of times) {
      t.textContent = format(t.dateTime, t.dataset.when);
      t.title = `${format(t.dateTime, "seconds")} (${zone()})`;
    }
    return times.length;
  }

  function nameTheZone() {
    const foot = document.getElementById("time-zone");
    if (!foot || !document.querySelector("time[data-when]")) return;
    foot.textContent = `Times are in your time zone, ${zone()}.`;
    foot.hidden = false;
  }

  window.gridalignWhen = { format, zone, rewrite, nameTheZone };
  document.addEventListener("DOMContentLoaded", () => {
    rewrite(document);
    nameTheZone();
  });
})();
