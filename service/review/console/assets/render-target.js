// The bar that says what a label key will act on, and the selection's count and buttons, drawn from the state.
import { $ } from './dom.js';
import { state } from './state.js';

// The one rule for what s / h (and the Spam / Legitimate buttons) label: the selection when there is one, else the
// item on screen. The bar at the bottom says which before anything happens, and whether the item on screen is in it.
export function showSelection() {
  const n = state.selected.size;
  $('selected-count').textContent = n === 0 ? 'None selected' : `${n} selected`;
  $('clear-selection').hidden = n === 0;
  const page = $('select-page');
  page.checked = n > 0 && state.items.length > 0 && state.items.every((x) => state.selected.has(x.submissionId));
  const bar = $('target');
  if (n === 0) {
    $('mark-spam-text').textContent = 'Spam';
    $('mark-legitimate-text').textContent = 'Legitimate';
    bar.textContent = state.current ? 'Labels the item on screen' : 'Nothing to label';
    bar.className = 'target';
    return;
  }
  $('mark-spam-text').textContent = `Spam: label ${n} selected`;
  $('mark-legitimate-text').textContent = `Legitimate: label ${n} selected`;
  const inIt = state.current !== undefined && state.selected.has(state.current.submissionId);
  bar.textContent = `Labels the ${n} selected. The item on screen is ${inIt ? 'one of them' : 'NOT one of them'}.`;
  bar.className = inIt ? 'target bulk-target' : 'target bulk-target outside';
}
