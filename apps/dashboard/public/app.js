// The dashboard page: reads the JSON API, draws Chart.js charts and a table of the same numbers
// per panel, and refreshes itself. Every number is also in a data-value attribute (exact, unformatted)
// so that the browser test compares what the page shows with direct SQL.
'use strict';

(function () {
  const PASSED = ['range', 'from', 'to', 'at', 'run', 'window', 'limit', 'active'];
  const charts = {};
  let refreshMs = 5000;
  let timer = null;
  let rounds = 0;

  function query() {
    const here = new URLSearchParams(window.location.search);
    const out = new URLSearchParams();
    for (const k of PASSED) {
      const v = here.get(k);
      if (v !== null && v !== '') out.set(k, v);
    }
    return out.toString();
  }

  async function getJson(endpoint) {
    const res = await fetch('/api/' + endpoint + '?' + query(), { cache: 'no-store' });
    const body = await res.json();
    if (!res.ok) {
      const why =
        body.error === 'bad_parameter'
          ? 'bad parameter "' +
            body.parameter +
            '": expected ' +
            body.expected +
            ' (got ' +
            JSON.stringify(body.got) +
            ')'
          : body.error + (body.detail ? ': ' + body.detail : '');
      throw new Error(why);
    }
    return body;
  }

  const fmt = new Intl.NumberFormat('en-US');
  const fmt2 = new Intl.NumberFormat('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  const money = (cents) => fmt2.format(Math.round(cents) / 100);
  const hhmm = (ms) => new Date(ms).toISOString().slice(11, 16);

  function cell(text, value) {
    const td = document.createElement('td');
    td.textContent = text;
    if (value !== undefined) td.dataset.value = String(value);
    return td;
  }

  function fillTable(panel, testid, rows) {
    const tbody = document.querySelector('[data-testid="' + testid + '"] tbody');
    tbody.replaceChildren(
      ...rows.map((cells) => {
        const tr = document.createElement('tr');
        tr.append(...cells);
        return tr;
      }),
    );
    if (rows.length === 0) {
      const tr = document.createElement('tr');
      const td = cell('no data in this range');
      td.colSpan = 4;
      td.className = 'empty';
      tr.append(td);
      tbody.append(tr);
    }
  }

  function chart(id, type, labels, datasets, options) {
    if (typeof Chart === 'undefined') return;
    const existing = charts[id];
    if (existing) {
      existing.data.labels = labels;
      existing.data.datasets = datasets;
      existing.update('none');
      return;
    }
    charts[id] = new Chart(document.getElementById(id), {
      type,
      data: { labels, datasets },
      options: Object.assign(
        {
          animation: false,
          responsive: true,
          plugins: { legend: { display: datasets.length > 1 } },
        },
        options || {},
      ),
    });
  }

  function setState(panelId, state, note, params) {
    const panel = document.getElementById(panelId);
    panel.dataset.state = state;
    panel.dataset.round = String(rounds);
    if (params) {
      panel.dataset.fromMs = String(params.fromMs);
      panel.dataset.toMs = String(params.toMs);
      panel.dataset.atMs = String(params.atMs);
    }
    panel.querySelector('.note').textContent = note || '';
  }

  const panels = {
    'panel-funnel': async () => {
      const r = await getJson('funnel');
      const steps = r.data.steps;
      chart(
        'chart-funnel',
        'bar',
        steps.map((s) => s.step),
        [{ label: 'sessions', data: steps.map((s) => s.sessions), backgroundColor: '#3b6ea8' }],
      );
      fillTable(
        'panel-funnel',
        'funnel',
        steps.map((s, i) => {
          const prev = i === 0 ? null : steps[i - 1].sessions;
          const pct = prev ? ((100 * s.sessions) / prev).toFixed(1) + ' %' : '';
          return [cell(s.step), cell(fmt.format(s.sessions), s.sessions), cell(pct)];
        }),
      );
      return r;
    },
    'panel-revenue': async () => {
      const r = await getJson('revenue');
      const mins = r.data.minutes;
      document.getElementById('revenue-source').textContent =
        'from ' +
        (r.data.source === 'windows'
          ? 'window aggregates (agg_windows, on-time events)'
          : 'clean events') +
        '; minor units / 100, currencies not converted';
      chart(
        'chart-revenue',
        'bar',
        mins.map((m) => hhmm(m.minute)),
        [
          {
            label: 'revenue',
            data: mins.map((m) => m.revenueCents / 100),
            backgroundColor: '#4c9a5b',
          },
        ],
      );
      const total = mins.reduce((a, m) => a + m.revenueCents, 0);
      const payments = mins.reduce((a, m) => a + m.payments, 0);
      const t = document.querySelector('[data-testid="revenue-total"]');
      t.textContent = 'total ' + money(total) + ' from ' + fmt.format(payments) + ' payments';
      t.dataset.value = String(total);
      t.dataset.payments = String(payments);
      fillTable(
        'panel-revenue',
        'revenue',
        mins.map((m) => [
          cell(new Date(m.minute).toISOString().slice(0, 16).replace('T', ' '), m.minute),
          cell(money(m.revenueCents), m.revenueCents),
          cell(fmt.format(m.payments), m.payments),
        ]),
      );
      return r;
    },
    'panel-products': async () => {
      const r = await getJson('top-products');
      const v = r.data.byViews;
      const c = r.data.byAddToCart;
      chart(
        'chart-views',
        'bar',
        v.map((p) => p.productId),
        [{ label: 'views', data: v.map((p) => p.count), backgroundColor: '#8a5fb0' }],
        { indexAxis: 'y' },
      );
      chart(
        'chart-carts',
        'bar',
        c.map((p) => p.productId),
        [{ label: 'add-to-carts', data: c.map((p) => p.count), backgroundColor: '#c27b2f' }],
        { indexAxis: 'y' },
      );
      fillTable(
        'panel-products',
        'top-views',
        v.map((p) => [cell(p.productId, p.productId), cell(fmt.format(p.count), p.count)]),
      );
      fillTable(
        'panel-products',
        'top-carts',
        c.map((p) => [cell(p.productId, p.productId), cell(fmt.format(p.count), p.count)]),
      );
      return r;
    },
    'panel-active': async () => {
      const r = await getJson('active-sessions');
      const big = document.querySelector('[data-testid="active-sessions"]');
      big.textContent = fmt.format(r.data.sessions);
      big.dataset.value = String(r.data.sessions);
      const ev = document.querySelector('[data-testid="active-events"]');
      ev.textContent = fmt.format(r.data.events) + ' events';
      ev.dataset.value = String(r.data.events);
      document.getElementById('active-window').textContent =
        'an event in the last ' + r.params.activeS + ' s of event time';
      return r;
    },
    'panel-dlq': async () => {
      const r = await getJson('dead-letters');
      const reasons = r.data.reasons;
      chart(
        'chart-dlq',
        'bar',
        reasons.map((x) => x.reason),
        [{ label: 'dead letters', data: reasons.map((x) => x.count), backgroundColor: '#b04a4a' }],
        { indexAxis: 'y' },
      );
      fillTable(
        'panel-dlq',
        'dead-letters',
        reasons.map((x) => [cell(x.reason, x.reason), cell(fmt.format(x.count), x.count)]),
      );
      return r;
    },
    'panel-layers': async () => {
      const r = await getJson('layers');
      fillTable(
        'panel-layers',
        'layers',
        r.data.rows.map((row) => {
          const shown =
            row.state === 'ok'
              ? row.unit === 's'
                ? row.value.toFixed(2) + ' s'
                : row.value.toFixed(1) + ' events/s'
              : row.state === 'no_data'
                ? 'no data'
                : 'error: ' + row.detail;
          const td = cell(shown, row.state === 'ok' ? row.value : row.state);
          td.className = row.state;
          td.title = row.promql;
          return [cell(row.layer), cell(row.kind), cell(row.measure), td];
        }),
      );
      return r;
    },
  };

  async function refreshAll() {
    rounds += 1;
    const results = await Promise.all(
      Object.entries(panels).map(async ([id, load]) => {
        try {
          const r = await load();
          setState(
            id,
            'ready',
            'updated ' + new Date().toISOString().slice(11, 19) + ' UTC, ' + r.tookMs + ' ms',
            r.params,
          );
          return null;
        } catch (err) {
          setState(id, 'error', String(err.message || err));
          return id;
        }
      }),
    );
    const failed = results.filter((x) => x !== null);
    const status = document.getElementById('status');
    status.textContent =
      (failed.length === 0 ? 'all panels up to date' : failed.length + ' panel(s) failed') +
      ' · refreshes every ' +
      refreshMs / 1000 +
      ' s · ' +
      new Date().toISOString().replace('T', ' ').slice(0, 19) +
      ' UTC';
    document.body.dataset.rounds = String(rounds);
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      await refreshAll();
      schedule();
    }, refreshMs);
  }

  function initControls() {
    const here = new URLSearchParams(window.location.search);
    for (const k of ['range', 'window', 'run']) {
      const v = here.get(k);
      if (v !== null) document.getElementById(k).value = v;
    }
    // An explicit from/to in the URL is a custom range, not the preset the select shows by default.
    if (here.get('from') !== null) document.getElementById('range').value = '';
    document.getElementById('controls').addEventListener('submit', (e) => {
      e.preventDefault();
      const next = new URLSearchParams(window.location.search);
      for (const k of ['range', 'window', 'run']) {
        const v = document.getElementById(k).value.trim();
        if (v === '') next.delete(k);
        else next.set(k, v);
      }
      // A preset range replaces an explicit from/to.
      if (next.get('range') !== null) {
        next.delete('from');
        next.delete('to');
      }
      history.replaceState(null, '', '?' + next.toString());
      refreshAll().then(schedule, schedule);
    });
  }

  async function start() {
    initControls();
    try {
      const cfg = await getJson('config');
      refreshMs = cfg.data.refreshMs;
    } catch (err) {
      document.getElementById('status').textContent = String(err.message || err);
    }
    await refreshAll();
    schedule();
  }

  document.addEventListener('DOMContentLoaded', () => {
    start().catch((err) => {
      document.getElementById('status').textContent = String(err);
    });
  });
})();
