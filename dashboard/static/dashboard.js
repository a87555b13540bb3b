// The developer area's only script. Every page works without it; it only adds copy buttons
// (which stay hidden without it) and a confirmation before forms that cannot be undone.

document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const target = document.getElementById(button.getAttribute('data-copy'));
    if (!target || !navigator.clipboard) continue;
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(target.textContent.trim());
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select the text and copy it';
      }
      setTimeout(() => {
        button.textContent = label;
      }, 2000);
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  }

  // The error summary takes the focus, so keyboard and screen-reader users hear it first.
  const summary = document.querySelector('.error-summary');
  if (summary) summary.focus();
});
