// The developer area's only script. Every page works without it; it only adds copy buttons
// and a print button (which stay hidden without it), a confirmation before forms that cannot be
// undone, one sending per click of a purchase form, and on a phone the sections scrolled so the
// current one is in view.

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

  // A printable receipt: the button is shown only where the script runs.
  for (const button of document.querySelectorAll('button[data-print]')) {
    button.hidden = false;
    button.addEventListener('click', () => window.print());
  }

  // A purchase form is sent once per click: its button waits for the answer. The form's
  // request id makes a second sending harmless anyway (the core buys once per request id).
  for (const form of document.querySelectorAll('form[data-once]')) {
    form.addEventListener('submit', () => {
      for (const button of form.querySelectorAll('button[type="submit"]')) {
        setTimeout(() => {
          button.disabled = true;
        }, 0);
      }
    });
  }

  // The error summary takes the focus, so keyboard and screen-reader users hear it first.
  // On a phone the sections scroll sideways under a fade: the current one is brought to the
  // middle of the band, so a section far down the list (Buy, Webhooks) is not hidden off its end.
  // Again when the window changes width (a phone turned), since the band's width changes with it.
  const nav = document.querySelector('.site-nav');
  const here = nav?.querySelector('a[aria-current="page"]');
  const showCurrent = () => {
    if (!nav || !here || nav.scrollWidth <= nav.clientWidth) return;
    const offset = here.getBoundingClientRect().left - nav.getBoundingClientRect().left;
    nav.scrollLeft += offset - (nav.clientWidth - here.offsetWidth) / 2;
  };
  showCurrent();
  window.addEventListener('resize', showCurrent);

  const summary = document.querySelector('.error-summary');
  if (summary) summary.focus();
});
