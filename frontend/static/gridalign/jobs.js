/* The live job progress bar. Markup: annotator/_job.html (an element with data-job-url and
 * data-status, and children marked data-field). Every unfinished job on the page polls its
 * JSON once a second until it is finished, then fires a bubbling "gridalign:job-finished"
 * event with the job's state as `detail`. For a job added later: GridAlign.watchJob(element).
 */
(function () {
  "use strict";

  var POLL_MS = 1000;
  var FINISHED = { succeeded: true, failed: true };
  var LABELS = { queued: "Queued", running: "Running", succeeded: "Succeeded", failed: "Failed" };

  function field(el, name) {
    return el.querySelector('[data-field="' + name + '"]');
  }

  function setText(node, text) {
    if (node && node.textContent !== text) node.textContent = text;
  }

  function render(el, job) {
    el.dataset.status = job.status;
    el.className = el.className.replace(/\bjob--\w+/g, "").trim() + " job--" + job.status;
    var status = field(el, "status");
    if (status) {
      status.className = status.className.replace(/\bstatus--\w+/g, "").trim() + " status--" + job.status;
      setText(status, LABELS[job.status] || job.status);
    }
    var bar = field(el, "bar");
    if (bar) bar.setAttribute("aria-valuenow", String(job.progress));
    var fill = field(el, "fill");
    if (fill) fill.style.width = job.progress + "%";
    setText(field(el, "progress"), job.progress + "%");
    setText(field(el, "message"), job.message || "");
    var error = field(el, "error"); // the traceback for leads and staff, else one line
    var failure = job.error || job.reason || "";
    if (error) {
      error.hidden = !failure;
      setText(error, failure);
    }
    var summary = field(el, "summary"); // a succeeded job's result in words
    if (summary) {
      summary.hidden = !job.summary;
      setText(summary, job.summary || "");
    }
    var box = field(el, "result-box");
    if (box) {
      box.hidden = job.result === null || job.result === undefined;
      if (!box.hidden) setText(field(el, "result"), JSON.stringify(job.result, null, 2));
    }
  }

  function watchJob(el) {
    if (!el || el.dataset.watching) return;
    el.dataset.watching = "1";
    var url = el.dataset.jobUrl;
    var failures = 0;

    function tick() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
        .then(function (response) {
          if (response.status === 401 || response.status === 403 || response.status === 404) {
            setText(field(el, "message"), response.status === 401
              ? "Logged out: reload the page after logging in."
              : "This job is no longer visible.");
            return null;
          }
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (job) {
          if (!job) return;
          failures = 0;
          render(el, job);
          if (FINISHED[job.status]) {
            el.dispatchEvent(new CustomEvent("gridalign:job-finished", { detail: job, bubbles: true }));
          } else {
            window.setTimeout(tick, POLL_MS);
          }
        })
        .catch(function () {
          failures += 1;
          setText(field(el, "message"), "Lost contact with the server; retrying…");
          window.setTimeout(tick, Math.min(POLL_MS * Math.pow(2, failures), 15000));
        });
    }
    tick();
  }

  function watchAll(root) {
    (root || document).querySelectorAll("[data-job-url]").forEach(function (el) {
      if (!FINISHED[el.dataset.status]) watchJob(el);
    });
  }

  window.GridAlign = window.GridAlign || {};
  window.GridAlign.watchJob = watchJob;
  window.GridAlign.watchJobs = watchAll;
  document.addEventListener("DOMContentLoaded", function () { watchAll(document); });
})();
