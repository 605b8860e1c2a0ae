// The rows picked for a bulk label: the selection in the state, drawn by render().
import { render } from './render.js';
import { state } from './state.js';

function set(i, on) {
  const item = state.items[i];
  if (!item) return;
  if (on) state.selected.add(item.submissionId);
  else state.selected.delete(item.submissionId);
}

export function pick(i, on) {
  set(i, on);
  render();
}

export function pickRange(from, to, on) {
  const [a, b] = from <= to ? [from, to] : [to, from];
  for (let i = a; i <= b; i++) set(i, on);
  render();
}

export function pickPage() {
  const all = state.items.length > 0 && state.items.every((x) => state.selected.has(x.submissionId));
  state.items.forEach((_, i) => set(i, !all));
  render();
}

export function clearSelection() {
  state.selected.clear();
  render();
}
