// Which view is shown (queue, dashboard, history, lists), and the start of a signed-in session.
import { AccountLists } from './lists.js';
import { call } from './api.js';
import { Dashboard } from './dashboard.js';
import { $, el, toast } from './dom.js';
import { LabelHistory } from './history.js';
import { load, select, show } from './navigation.js';
import { showCounts } from './render-list.js';
import { showSignIn } from './sign-in.js';
import { state } from './state.js';
import { readUrl, writeUrl } from './url-state.js';

const VIEWS = { queue: 'console', dashboard: 'dashboard', history: 'history', lists: 'lists' };

export function setView(view) {
  const before = state.view;
  state.view = view;
  writeUrl();
  for (const [name, main] of Object.entries(VIEWS)) {
    $(main).hidden = name !== view;
    $(`view-${name}`).setAttribute('aria-pressed', name === view ? 'true' : 'false');
  }
  if (view === 'dashboard') void Dashboard.show(call, toast);
  if (view === 'history') void LabelHistory.show({ call, toast, onChange: showCounts });
  if (view === 'lists') void AccountLists.show({ call, toast });
  // Back from the history (where labels may have been undone): the list is read again.
  if (view === 'queue' && before !== 'queue') void load(true).catch((err) => toast(err.message));
}

export async function start() {
  let me;
  try {
    me = await call('GET', '/me');
  } catch (err) {
    showSignIn();
    // Only a 401 means "signed out"; anything else (the store down: 503) is said, so nobody retypes a token for it.
    if (err.status !== 401) $('sign-in-error').textContent = `${err.message} Your session is kept: reload the page once it is back.`;
    return;
  }
  $('sign-in').hidden = true;
  $('views').hidden = false;
  $('sign-out').hidden = false;
  state.keepFieldsDays = me.keepFieldsDays ?? 0;
  $('who').textContent = `${me.moderatorId} · ${me.accountId}`;
  const wanted = readUrl();
  const formBox = $('filter-form');
  while (formBox.options.length > 1) formBox.remove(1);
  for (const form of me.forms) formBox.append(el('option', { value: form, text: form }));
  // A form of the address this account does not have filters nothing: dropped, so the box and the list agree.
  if (!me.forms.includes(state.filter.form)) state.filter.form = '';
  formBox.value = state.filter.form;
  $('filter-status').value = state.filter.status;
  $('sort').value = state.filter.sort;
  $('from').value = state.filter.from;
  $('to').value = state.filter.to;
  $('search').value = state.filter.q;
  showCounts(me.counts);
  setView(wanted.view);
  await load();
  if (wanted.item !== undefined) {
    const at = state.items.findIndex((x) => x.submissionId === wanted.item);
    if (at >= 0) select(at);
    else await show(wanted.item).catch((err) => toast(err.message));
  }
  // Where the work starts: the keys act on the list, Tab goes on to the label buttons. (The sign-in form the focus
  // was in is hidden now; left alone, the focus would fall to the page and the first Tab skip the filters and list.)
  const lookedUp = wanted.item !== undefined && state.current?.submissionId === wanted.item && !state.items.includes(state.current);
  if (wanted.view === 'queue') (lookedUp ? $('detail') : $('list')).focus();
}
