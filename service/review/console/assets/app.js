// Moderator console: the entry module. It wires the page's controls to the modules beside it (state.js holds what
// is on screen; render-list.js and render-detail.js draw it; navigation.js, labelling.js, keys.js and views.js act).
import { call, onSignedOut } from './api.js';
import { $, toast } from './dom.js';
import { onKey } from './keys.js';
import { confirmAll, confirmPreview, mark, report, undo } from './labelling.js';
import { lookup, refilter, select, setDay, turnPage } from './navigation.js';
import { clearSelection, pick, pickPage, pickRange } from './selection.js';
import { showSignIn } from './sign-in.js';
import { state } from './state.js';
import { setView, start } from './views.js';

onSignedOut(showSignIn);

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('sign-in-error').textContent = '';
    const input = $('token');
    try {
      await call('POST', '/session', { token: input.value });
      input.value = '';
      await start();
    } catch (err) {
      input.value = '';
      $('sign-in-error').textContent = err.status === 401 ? 'That token is not valid.' : err.message;
    }
  });
  $('sign-out').addEventListener('click', async () => {
    try {
      await call('POST', '/sign-out', {});
    } finally {
      // The next person at this screen starts from the plain console, not from this session's filters or item.
      history.replaceState(null, '', location.pathname);
      showSignIn();
    }
  });
  $('filter-form').addEventListener('change', (e) => refilter({ form: e.target.value }));
  $('filter-status').addEventListener('change', (e) => refilter({ status: e.target.value }));
  $('sort').addEventListener('change', (e) => refilter({ sort: e.target.value }));
  $('from').addEventListener('change', (e) => setDay('from', e.target.value));
  $('to').addEventListener('change', (e) => setDay('to', e.target.value));
  $('refine').addEventListener('submit', (e) => {
    e.preventDefault();
    refilter({ q: $('search').value.trim() });
  });
  $('search').addEventListener('search', () => {
    if ($('search').value === '' && state.filter.q) refilter({ q: '' });
  });
  $('page-prev').addEventListener('click', () => void turnPage(-1).catch((err) => toast(err.message)));
  $('page-next').addEventListener('click', () => void turnPage(1).catch((err) => toast(err.message)));
  $('select-page').addEventListener('change', () => pickPage());
  $('clear-selection').addEventListener('click', () => clearSelection());
  $('confirm-preview').addEventListener('click', () => void confirmPreview());
  $('confirm-go').addEventListener('click', () => void confirmAll());
  $('view-queue').addEventListener('click', () => setView('queue'));
  $('view-dashboard').addEventListener('click', () => setView('dashboard'));
  $('view-history').addEventListener('click', () => setView('history'));
  $('view-lists').addEventListener('click', () => setView('lists'));
  $('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    void lookup();
  });
  $('lookup').addEventListener('click', () => void lookup());
  $('mark-spam').addEventListener('click', () => void mark('spam'));
  $('mark-legitimate').addEventListener('click', () => void mark('legitimate'));
  $('undo').addEventListener('click', () => void undo());
  // The rows are redrawn from the state: one listener on the list takes the clicks on them and on their boxes.
  $('list').addEventListener('click', (event) => {
    const li = event.target.closest('li[data-id]');
    if (!li) return;
    const i = Array.prototype.indexOf.call($('list').children, li);
    if (event.target.matches('input.pick')) {
      if (event.shiftKey) pickRange(state.anchor, i, event.target.checked);
      else pick(i, event.target.checked);
      state.anchor = i;
      return;
    }
    if (event.shiftKey) {
      pickRange(state.anchor, i, true);
      return;
    }
    state.anchor = i;
    select(i);
  });
  // A reported miss's buttons, drawn with the item on screen.
  $('detail').addEventListener('click', (event) => {
    const button = event.target.closest('.paste button[data-label]');
    if (!button) return;
    const paste = button.closest('.paste');
    void report(paste.dataset.id, button.dataset.label, paste.querySelector('textarea').value);
  });
  document.addEventListener('keydown', onKey);
  void start();
});
