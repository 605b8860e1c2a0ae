// The dashboard: what the filter did for this account, per form and day, drawn with Chart.js (served with the console).
// Form ids come from the tenants file and counts from the server; still, everything goes in as text, never as HTML.
import { $ } from './dom.js';

export const Dashboard = (() => {
  const COLORS = { spam: '#b3261e', legitimate: '#1f6f43', blocked: '#8a5200', 'rate-limited': '#5b6470' };
  const charts = {};
  let call;
  let toast;
  let wired = false;

  const pct = (v) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
  const estimate = (e) => (e.value === null ? 'no labels yet' : `${pct(e.value)} (${e.labels} label${e.labels === 1 ? '' : 's'})`);
  // Precision rests on labels decided one by one; the bulk ones it leaves out are said, not hidden.
  const precision = (f) => estimate(f.precision) + (f.precisionLeftOut > 0 ? `; ${f.precisionLeftOut.toLocaleString()} bulk left out` : '');

  function cell(tag, text) {
    const c = document.createElement(tag);
    c.textContent = text;
    return c;
  }

  function table(data) {
    const t = $('dash-table');
    t.replaceChildren();
    const head = document.createElement('tr');
    for (const h of [
      'Form',
      'Verified',
      'Spam',
      'Spam share',
      'Blocked origins',
      'Rate-limited',
      'By block list',
      'By allow list',
      'Precision on spam',
      'Missed spam in sample',
      'Labels',
    ])
      head.append(cell('th', h));
    const thead = document.createElement('thead');
    thead.append(head);
    const body = document.createElement('tbody');
    for (const f of [...data.forms, data.total]) {
      const tr = document.createElement('tr');
      if (f === data.total) tr.className = 'total';
      tr.dataset.form = f.formId;
      for (const v of [
        f.formId,
        f.verified.toLocaleString(),
        f.spam.toLocaleString(),
        pct(f.spamShare),
        f.blocked.toLocaleString(),
        f.rateLimited.toLocaleString(),
        f.blockList.toLocaleString(),
        f.allowList.toLocaleString(),
        precision(f),
        estimate(f.missedSpam),
        f.labels.toLocaleString(),
      ]) {
        tr.append(cell('td', v));
      }
      body.append(tr);
    }
    t.append(thead, body);
  }

  function draw(id, config) {
    charts[id]?.destroy();
    // No animation: the chart is complete as soon as it is drawn (and a screenshot shows it).
    charts[id] = new window.Chart($(id), {
      ...config,
      options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options },
    });
  }

  function render(data) {
    table(data);
    $('dash-note').textContent =
      `${data.from.slice(0, 10)} to ${data.to.slice(0, 10)} (UTC days). Precision: of the spam verdicts moderators labelled one by one, the share they confirmed; bulk labels and confirm-all are left out (they mostly restate the model). ` +
      `Missed spam: of the confident legitimate verdicts sampled for review (confidence at or above this account's band, ${data.band}; sample rate ${data.sampleRate}), the share labelled spam; reported misses are left out (no random sample).` +
      (data.labelsCut ? ' The period holds more labels than one view reads: the estimates rest on the newest.' : '');
    const forms = $('dash-form');
    const chosen = forms.value;
    while (forms.options.length > 1) forms.remove(1);
    for (const f of data.allForms) forms.append(new Option(f, f));
    forms.value = data.allForms.includes(chosen) ? chosen : '';
    if (!window.Chart) {
      $('dash-note').textContent += ' (The charting library did not load.)';
      return;
    }
    const events = ['spam', 'legitimate', 'blocked', 'rate-limited'];
    draw('chart-days', {
      type: 'bar',
      data: {
        labels: data.days.map((d) => d.day.slice(5)),
        datasets: events.map((e) => ({ label: e, data: data.days.map((d) => d[e]), backgroundColor: COLORS[e] })),
      },
      options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } },
    });
    const edges = data.histogram.edges;
    draw('chart-hist', {
      type: 'bar',
      data: {
        labels: edges.slice(0, -1).map((e, i) => `${e.toFixed(1)}–${edges[i + 1].toFixed(1)}`),
        datasets: ['spam', 'legitimate'].map((l) => ({ label: `labelled ${l}`, data: data.histogram[l], backgroundColor: COLORS[l] })),
      },
      options: {
        scales: {
          x: { stacked: true, title: { display: true, text: "model's spam score" } },
          y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
        },
      },
    });
  }

  async function refresh() {
    const q = new URLSearchParams({ days: $('dash-days').value });
    if ($('dash-form').value) q.set('form', $('dash-form').value);
    try {
      render(await call('GET', `/dashboard?${q}`));
    } catch (err) {
      toast(err.message);
    }
  }

  return {
    async show(caller, toaster) {
      call = caller;
      toast = toaster;
      if (!wired) {
        wired = true;
        $('dash-days').addEventListener('change', () => void refresh());
        $('dash-form').addEventListener('change', () => void refresh());
      }
      await refresh();
    },
    // Sign-out: nothing of the account stays in the page.
    reset() {
      for (const id of Object.keys(charts)) {
        charts[id].destroy();
        delete charts[id];
      }
      $('dash-table').replaceChildren();
      $('dash-note').textContent = '';
      const forms = $('dash-form');
      while (forms.options.length > 1) forms.remove(1);
    },
  };
})();
