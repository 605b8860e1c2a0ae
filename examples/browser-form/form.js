// Asks formguard before the form is sent: legitimate or no verdict → the browser submits it; spam → held here.
// In your site, bundle '@formguard/client' or serve its dist/ file; serve.ts serves it as /formguard-client.js.
import { FormguardClient } from './formguard-client.js';

const form = document.querySelector('form[data-formguard-url]');
const verdict = document.getElementById('verdict');
const button = form.querySelector('button[type="submit"]');
const client = new FormguardClient({ baseUrl: form.dataset.formguardUrl, apiKey: form.dataset.formguardKey });

function show(outcome, text) {
  verdict.dataset.outcome = outcome;
  verdict.textContent = text;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  button.disabled = true;
  show('checking', 'Checking your message…');
  const fields = Object.fromEntries([...new FormData(form)].filter(([name]) => !name.startsWith('formguard_')));
  // The browser sends its own Origin header; the service checks it against the form's allowed list.
  const result = await client.verify({ formId: form.dataset.formguardForm, payload: fields });
  if (result.allow) {
    show(result.outcome, result.outcome === 'legitimate' ? 'Looks fine: sending…' : 'The spam check did not answer: sending anyway…');
    form.elements.formguard_outcome.value = result.outcome;
    form.elements.formguard_submission_id.value = result.submissionId ?? '';
    // submit() sends the form without firing this handler again.
    form.submit();
    return;
  }
  button.disabled = false;
  if (result.outcome === 'spam') {
    show(
      'spam',
      `Not sent: this message looks like spam (confidence ${result.confidence.toFixed(2)}). If it is not, please reword it, or write to us by e-mail.`,
    );
  } else {
    show('blocked', 'Not sent: this page is not allowed to use the spam check (its address is not on the form’s list).');
  }
});
