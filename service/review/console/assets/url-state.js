import { DAY, PAGE, SORTS, UUID, state } from './state.js';

// The address holds what is on screen (view, filters, search, page, open item): a reload keeps it, and a link to an
// item opens it. Replaced, not pushed: moving through the list must not fill the browser's history.
export function writeUrl() {
  const f = state.filter;
  const q = new URLSearchParams();
  if (state.view !== 'queue') q.set('view', state.view);
  if (f.form) q.set('form', f.form);
  if (f.status) q.set('status', f.status);
  if (f.sort !== 'oldest') q.set('sort', f.sort);
  if (f.from) q.set('from', f.from);
  if (f.to) q.set('to', f.to);
  if (f.q) q.set('q', f.q);
  if (state.offset > 0) q.set('offset', String(state.offset));
  if (state.current) q.set('item', state.current.submissionId);
  const query = q.toString();
  const url = `${location.pathname}${query ? `?${query}` : ''}`;
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
}

// What the address asks for; anything malformed is left out rather than sent to the server.
export function readUrl() {
  const q = new URLSearchParams(location.search);
  const get = (name) => q.get(name) ?? '';
  state.filter = {
    form: get('form').slice(0, 200),
    status: ['spam', 'legitimate'].includes(get('status')) ? get('status') : '',
    sort: SORTS.includes(get('sort')) ? get('sort') : 'oldest',
    from: DAY.test(get('from')) ? get('from') : '',
    to: DAY.test(get('to')) ? get('to') : '',
    q: get('q').slice(0, 300),
  };
  const offset = Number.parseInt(get('offset'), 10);
  state.offset = Number.isFinite(offset) && offset > 0 ? offset - (offset % PAGE) : 0;
  return {
    view: ['dashboard', 'history', 'lists'].includes(get('view')) ? get('view') : 'queue',
    item: UUID.test(get('item')) ? get('item') : undefined,
  };
}
