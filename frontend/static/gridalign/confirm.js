// Forms and buttons marked data-confirm="question" ask before they submit (removing a member,
// withdrawing work, archiving): one listener for every page, no inline script (CSP).
document.addEventListener("submit", (event) => {
  const form = event.target;
  const button = event.submitter;
  const question = (button && button.dataset.confirm) || form.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
}, true);
