// The keyboard: j / k move, x / a / Shift+j/k select, s / h label, u undoes, / looks up, Esc clears.
import { $ } from './dom.js';
import { mark, undo } from './labelling.js';
import { extend, select } from './navigation.js';
import { clearSelection, pick, pickPage } from './selection.js';
import { state } from './state.js';

export function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  if ($('console').hidden) return;
  if (event.key === 'Escape' && state.selected.size > 0) {
    clearSelection();
    return;
  }
  if (event.shiftKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
    event.preventDefault();
    extend(event.key === 'ArrowDown' ? 1 : -1);
    return;
  }
  const actions = {
    j: () => select(state.index + 1),
    ArrowDown: () => select(state.index + 1),
    k: () => select(state.index - 1),
    ArrowUp: () => select(state.index - 1),
    J: () => extend(1),
    K: () => extend(-1),
    x: () => {
      pick(state.index, !state.selected.has(state.current?.submissionId));
      state.anchor = state.index;
    },
    a: () => pickPage(),
    s: () => mark('spam'),
    h: () => mark('legitimate'),
    u: () => undo(),
    '/': () => {
      const box = $('lookup-id');
      box.focus();
      box.select(); // the next id typed or pasted replaces the last one
    },
  };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    void action();
  }
}
