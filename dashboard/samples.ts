/**
 * The webhook signature samples partners copy: one function per language (PHP, Node.js,
 * Python) in dashboard/static/samples/, shown on the Webhooks page and served as files under
 * /static/samples/. docs/webhooks.md shows the same files, and
 * test/webhooks/signature-samples.test.ts runs each against real signed deliveries.
 */
import { readFileSync } from 'node:fs';
import { html, type SafeHtml } from '../web/html.js';

/** Each sample: the language, its file in dashboard/static/samples/. */
const SAMPLE_FILES: ReadonlyArray<readonly [string, string]> = [
  ['PHP', 'verify-signature.php'],
  ['Node.js', 'verify-signature.mjs'],
  ['Python', 'verify_signature.py'],
];

/** The samples' paths under /static/, for the server's table of static files. */
export const SAMPLE_STATIC_PATHS: readonly string[] = SAMPLE_FILES.map(([, file]) => `samples/${file}`);

const samples = SAMPLE_FILES.map(([language, file]) => ({
  language,
  file,
  text: readFileSync(new URL(`./static/samples/${file}`, import.meta.url), 'utf8'),
}));

/**
 * The three samples, each in a disclosure (no script needed) with a copy button (the script
 * shows it) and a link to the file. The code is a keyboard-scrollable labelled region, since
 * its lines are wider than a phone.
 */
export function signatureSamples(): SafeHtml {
  return html`${samples.map(
    ({ language, file, text }, index) => html`<details class="details">
<summary>${language}</summary>
<div class="code-block"><pre class="scroll-region" role="region" aria-label="${language} sample" \
tabindex="0"><code id="signature-sample-${index}">${text}</code></pre>
<button type="button" class="button button--secondary" data-copy="signature-sample-${index}" hidden>Copy the \
${language} sample</button>
<p><a href="/static/samples/${file}" download>Download ${file}</a></p></div>
</details>`,
  )}`;
}
