// The one render of the queue: the summary, the pager, the rows (which one is current, which are picked), the item on
// screen, the bar that says what a label acts on, and the address, all drawn from the state. Rows are rebuilt only
// when the list itself changed, the item on screen only when it did (a half-pasted miss is not wiped by a pick).
import { $ } from './dom.js';
import { renderDetail } from './render-detail.js';
import { renderList, showPage, showSummary } from './render-list.js';
import { showSelection } from './render-target.js';
import { state } from './state.js';
import { writeUrl } from './url-state.js';

const drawn = { items: undefined, summary: undefined, entry: null, current: undefined };

/** After the page was emptied by hand (signing out): the next render draws everything again. */
export function forget() {
  Object.assign(drawn, { items: undefined, summary: undefined, entry: null, current: undefined });
}

export function render() {
  if (state.summary !== undefined && state.summary !== drawn.summary) showSummary(state.summary);
  drawn.summary = state.summary;
  showPage();
  const rebuilt = state.items !== drawn.items;
  if (rebuilt) renderList();
  drawn.items = state.items;
  drawRows(rebuilt);
  if (state.entry !== drawn.entry) renderDetail(state.entry);
  drawn.entry = state.entry;
  showSelection();
  writeUrl();
}

// The current row (none when the item on screen is a looked-up one) and the picked rows.
function drawRows(rebuilt) {
  const list = $('list');
  const nodes = list.children;
  const onList = state.current !== undefined && state.items[state.index] === state.current;
  for (let n = 0; n < state.items.length && n < nodes.length; n++) {
    const li = nodes[n];
    li.setAttribute('aria-selected', onList && n === state.index ? 'true' : 'false');
    const picked = state.selected.has(state.items[n].submissionId);
    li.setAttribute('aria-checked', picked ? 'true' : 'false');
    const box = li.querySelector('input.pick');
    if (box) box.checked = picked;
  }
  const current = onList ? nodes[state.index] : undefined;
  if (current) {
    list.setAttribute('aria-activedescendant', current.id);
    if (rebuilt || drawn.current !== state.current) current.scrollIntoView({ block: 'nearest' });
  } else list.removeAttribute('aria-activedescendant');
  drawn.current = state.current;
}
