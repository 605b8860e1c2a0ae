// The account's allow and block lists: the Lists view (add, remove, filter) and an item's "block this sender" buttons.
// Values come from submissions (attacker-written): they go in as text (dom.js's el), never as HTML.
import { $, el } from './dom.js';

export const AccountLists = (() => {
  const KIND_TEXT = { sender: 'sender', 'email-domain': 'e-mail domain', 'link-domain': 'link domain' };
  const PAGE = 200;
  let ctx;
  let wired = false;
  let offset = 0;

  const said = (r) =>
    r.result === 'added'
      ? `Added to the ${r.list} list: ${r.value}`
      : r.result === 'moved'
        ? `Moved to the ${r.list} list: ${r.value}`
        : r.result === 'exists'
          ? `Already on the ${r.list} list: ${r.value}`
          : r.result === 'removed'
            ? `Removed from the ${r.list} list: ${r.value}`
            : `Was not on the ${r.list} list: ${r.value}`;

  // An item's sender, its domain and the domains it links to, each with block and allow buttons (or what list it is on).
  function itemActions(item, c) {
    ctx = c;
    const box = el('div', { className: 'list-actions', 'aria-label': 'Allow and block lists' });
    void fill(box, item.submissionId);
    return box;
  }

  async function fill(box, id) {
    let data;
    try {
      data = await ctx.call('GET', `/items/${encodeURIComponent(id)}/lists`);
    } catch (err) {
      box.append(el('p', { className: 'note', text: `Lists: ${err.message}` }));
      return;
    }
    box.replaceChildren();
    if (data.candidates.length === 0) return;
    box.append(el('h3', { text: 'Allow and block lists' }));
    const rows = el('ul', { className: 'list-candidates' });
    for (const cand of data.candidates) {
      const li = el('li', { 'data-kind': cand.kind, 'data-value': cand.value });
      li.append(
        el('span', { className: 'muted', text: `${KIND_TEXT[cand.kind]} ` }),
        el('span', { className: 'value', text: cand.value }),
        ' ',
      );
      if (cand.listed) {
        li.append(el('span', { className: `badge ${cand.listed === 'block' ? 'spam' : 'legit'}`, text: `on ${cand.listed} list` }), ' ');
        li.append(button('quiet', `Remove`, `remove ${cand.kind}`, () => change('/lists/remove', cand.listed, cand, box, id)));
      } else {
        li.append(
          button('spam', `Block this ${KIND_TEXT[cand.kind]}`, `block ${cand.kind}`, () => change('/lists', 'block', cand, box, id)),
        );
        li.append(
          ' ',
          button('legit', `Allow`, `allow ${cand.kind}`, () => change('/lists', 'allow', cand, box, id)),
        );
      }
      if (cand.note) li.append(el('span', { className: 'note', text: ` ${cand.note}` }));
      rows.append(li);
    }
    box.append(rows);
  }

  function button(className, text, action, onClick) {
    const b = el('button', { type: 'button', className, 'data-list-action': action, text });
    b.addEventListener('click', () => void onClick());
    return b;
  }

  async function change(path, list, cand, box, id) {
    try {
      ctx.toast(said(await ctx.call('POST', path, { list, kind: cand.kind, value: cand.value })));
      await fill(box, id);
    } catch (err) {
      ctx.toast(err.message);
    }
  }

  // The list view: every entry of the account, newest first, filtered by list, kind and text.
  async function refresh() {
    const q = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
    if ($('lists-list').value) q.set('list', $('lists-list').value);
    if ($('lists-kind').value) q.set('kind', $('lists-kind').value);
    if ($('lists-q').value.trim()) q.set('q', $('lists-q').value.trim());
    let data;
    try {
      data = await ctx.call('GET', `/lists?${q}`);
    } catch (err) {
      ctx.toast(err.message);
      return;
    }
    $('lists-info').textContent =
      `${data.total.toLocaleString()} shown by the filter; ${data.size.toLocaleString()} of ${data.max.toLocaleString()} entries used (both lists). ` +
      'A block-list match answers spam, an allow-list match legitimate; block wins when both match. Every instance follows a change within seconds.';
    const t = $('lists-table');
    t.replaceChildren();
    const head = el('tr');
    for (const h of ['List', 'What', 'Value', 'Added by', 'When', '']) head.append(el('th', { text: h }));
    const body = el('tbody');
    for (const e of data.entries) {
      const tr = el('tr', { 'data-value': e.value });
      tr.append(
        el('td', {}, el('span', { className: `badge ${e.list === 'block' ? 'spam' : 'legit'}`, text: e.list })),
        el('td', { text: KIND_TEXT[e.kind] }),
        el('td', { className: 'value', text: e.value }),
        el('td', { text: e.by }),
        el('td', { text: e.at ? new Date(e.at).toLocaleString() : '' }),
        el(
          'td',
          {},
          button('quiet', 'Remove', `remove ${e.kind}`, () => removeEntry(e)),
        ),
      );
      body.append(tr);
    }
    t.append(el('thead', {}, head), body);
    $('lists-prev').disabled = offset === 0;
    $('lists-next').disabled = offset + PAGE >= data.total;
  }

  async function removeEntry(e) {
    try {
      ctx.toast(said(await ctx.call('POST', '/lists/remove', { list: e.list, kind: e.kind, value: e.value })));
    } catch (err) {
      ctx.toast(err.message);
    }
    await refresh();
  }

  async function addEntry(event) {
    event.preventDefault();
    const value = $('lists-value').value.trim();
    if (!value) return;
    try {
      ctx.toast(said(await ctx.call('POST', '/lists', { list: $('lists-add-list').value, kind: $('lists-add-kind').value, value })));
      $('lists-value').value = '';
    } catch (err) {
      ctx.toast(err.message);
    }
    await refresh();
  }

  return {
    itemActions,
    async show(c) {
      ctx = c;
      if (!wired) {
        wired = true;
        $('lists-add').addEventListener('submit', (e) => void addEntry(e));
        for (const id of ['lists-list', 'lists-kind'])
          $(id).addEventListener('change', () => {
            offset = 0;
            void refresh();
          });
        $('lists-filter').addEventListener('submit', (e) => {
          e.preventDefault();
          offset = 0;
          void refresh();
        });
        $('lists-prev').addEventListener('click', () => {
          offset = Math.max(0, offset - PAGE);
          void refresh();
        });
        $('lists-next').addEventListener('click', () => {
          offset += PAGE;
          void refresh();
        });
      }
      await refresh();
    },
    // Sign-out: nothing of the account stays in the page.
    reset() {
      offset = 0;
      $('lists-table').replaceChildren();
      $('lists-info').textContent = '';
      $('lists-q').value = '';
      $('lists-value').value = '';
    },
  };
})();
