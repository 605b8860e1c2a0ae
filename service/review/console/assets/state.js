// What the console holds: the view, the list and its filter, the item on screen, the selection. Every module reads
// and changes this one object; the DOM is drawn from it.

// seen: the label on screen for the current item (null: none) by its labelId, sent with a label so that a label
// someone else gave meanwhile, even in the same millisecond, is reported (409) instead of silently replaced.
// selected: submissionIds picked for a bulk label; anchor: the row a shift-click or Shift+j/k extends from.
export const PAGE = 100;
export const emptyView = () => ({ form: '', status: '', sort: 'oldest', from: '', to: '', q: '' });
// What a session puts on the screen: the list, the current item, the filter, the selection.
export const emptyScreen = () => ({
  items: [],
  index: 0,
  current: undefined,
  seen: null,
  filter: emptyView(),
  offset: 0,
  total: 0,
  selected: new Set(),
  anchor: 0,
  // The list's summary line (from the server) and what the detail shows: an item of the list or a looked-up one.
  summary: undefined,
  entry: undefined,
});
export const state = { ...emptyScreen(), busy: false, keepFieldsDays: 0, view: 'queue' };
export const SORTS = ['oldest', 'newest', 'confidence-high', 'confidence-low'];
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DAY = /^\d{4}-\d{2}-\d{2}$/;
