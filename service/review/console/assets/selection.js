// The rows picked for a bulk label, and the bar that says what a label key will act on.
import { $ } from './dom.js';
import { state } from './state.js';

export function pick(i, on) {
  const item = state.items[i];
  if (!item) return;
  if (on) state.selected.add(item.submissionId);
  else state.selected.delete(item.submissionId);
  const li = $('list').children[i];
  if (li) {
    li.setAttribute('aria-checked', on ? 'true' : 'false');
    const box = li.querySelector('input.pick');
    if (box) box.checked = on;
  }
  showSelection();
}

export function pickRange(from, to, on) {
  const [a, b] = from <= to ? [from, to] : [to, from];
  for (let i = a; i <= b; i++) pick(i, on);
}

export function pickPage() {
  const all = state.items.length > 0 && state.items.every((x) => state.selected.has(x.submissionId));
  state.items.forEach((_, i) => pick(i, !all));
}

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

export function clearSelection() {
  state.items.forEach((item, i) => {
    if (state.selected.has(item.submissionId)) pick(i, false);
  });
  state.selected.clear();
  showSelection();
}
