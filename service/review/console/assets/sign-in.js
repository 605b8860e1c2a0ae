import { AccountLists } from './lists.js';
import { Dashboard } from './dashboard.js';
import { LabelHistory } from './history.js';
import { $ } from './dom.js';
import { forget } from './render.js';
import { showSelection } from './render-target.js';
import { emptyScreen, state } from './state.js';

export function showSignIn() {
  // Forget the last session's screen: its submissions must not stay in the page, and its form filter must not
  // hide the next moderator's items (another account's forms are not in the list).
  Object.assign(state, emptyScreen());
  $('list').replaceChildren();
  $('detail').replaceChildren();
  for (const id of ['summary', 'page-info', 'confirm-count']) $(id).textContent = '';
  for (const id of ['from', 'to', 'search']) $(id).value = '';
  $('sort').value = 'oldest';
  $('confirm-go').hidden = true;
  forget();
  showSelection();
  Dashboard.reset();
  LabelHistory.reset();
  AccountLists.reset();
  $('dashboard').hidden = true;
  $('history').hidden = true;
  $('lists').hidden = true;
  $('views').hidden = true;
  const forms = $('filter-form');
  while (forms.options.length > 1) forms.remove(1);
  forms.value = '';
  $('filter-status').value = '';
  $('lookup-id').value = '';
  $('console').hidden = true;
  $('sign-out').hidden = true;
  $('who').textContent = '';
  $('counts').textContent = '';
  $('sign-in').hidden = false;
  $('token').focus();
}
