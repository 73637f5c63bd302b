// Trial feedback: after a trial pair is submitted, the annotator's alignment against the
// reference (an overlay grid) under a one-line headline. The headline's wording is a pure
// function (unit-tested in Node); showFeedback puts it on the page.

import { mountGrid } from "./render.js";

function score(x) {
  return x === null || x === undefined ? "—" : x.toFixed(2);
}

/**
 * The headline for the API's ``feedback`` ({word, word_all_links}: word-level scores with
 * their counts; ``word`` leaves links between identical words out, as the paper does).
 * Returns {text, over: "different" | "all"}: the figure over links between different words
 * when the reference has such links, else the figure over all links, saying which it is.
 */
export function feedbackHeadline(feedback) {
  const word = feedback.word || {};
  const every = feedback.word_all_links || null;
  const refLinks = word.counts ? word.counts.ref_links : null;
  const parts = (s) => `sure precision ${score(s.precision_sure)}, sure recall ${score(s.recall_sure)}`;
  if (every && (refLinks === 0 || word.f1 === null || word.f1 === undefined)) {
    const why =
      refLinks === 0
        ? "the reference links only identical words, so there is no figure without them"
        : "there is no figure without links between identical words";
    return { over: "all", text: `Word F1 ${score(every.f1)} over all links (${parts(every)}); ${why}.` };
  }
  const tail = every ? `; over all links, identical words included: F1 ${score(every.f1)}` : "";
  return {
    over: "different",
    text: `Word F1 ${score(word.f1)} over links between different words (${parts(word)})${tail}.`,
  };
}

/** Show the feedback section ``box`` for ``feedback``; ``next``: the next pair's page or null. */
export function showFeedback({ box, pair, links, feedback, next, queueUrl }) {
  const field = (name) => box.querySelector(`[data-field="${name}"]`);
  box.hidden = false;
  const headline = feedbackHeadline(feedback);
  field("feedback-score").textContent = headline.text;
  field("feedback-score").dataset.over = headline.over;
  mountGrid(field("feedback-grid"), {
    source: pair.source,
    target: pair.target,
    links,
    readOnly: true,
    overlay: { a: links, b: feedback.reference, labels: { a: "you", b: "the reference" } },
  });
  const cont = box.querySelector('[data-action="continue"]');
  cont.href = next || queueUrl;
  cont.firstChild.textContent = next ? "Continue to the next pair " : "Back to the queue ";
  box.scrollIntoView({ block: "start" });
  cont.focus();
}
