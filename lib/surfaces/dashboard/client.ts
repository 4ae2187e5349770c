/**
 * The page's script: a few dozen lines of plain JavaScript, served inline under the response's
 * nonce. It asks the overview API for fresh sections every two seconds and swaps each one that
 * changed (a looked-up task too, so its progress moves), and turns the action forms into JSON
 * posts with the CSRF header. Without it, the page still shows everything and its forms still
 * post; only the live refresh is gone.
 *
 * Written without template literals, so it sits inside this TypeScript template unescaped.
 */
export const CLIENT = `
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('docket-config').textContent);
  var root = document.getElementById('docket');
  var live = document.getElementById('live');
  var toast = document.getElementById('toast');
  var shown = {};
  var reading = false;
  var again = false;
  var toastTimer = null;
  var DONE = { pause: 'Queue paused', resume: 'Queue resumed', 'purge-dead': 'Dead tasks purged', clean: 'Tasks cleaned',
    redrive: 'Task sent back to ready', cancel: 'Task deleted', reschedule: 'Task rescheduled',
    'limit-concurrency': 'Concurrency limit saved', 'limit-rate': 'Rate limit saved',
    'redrive-all': 'Dead tasks sent back to ready' };

  function setLive(state, text) {
    live.setAttribute('data-state', state);
    live.querySelector('.text').textContent = text;
  }

  function say(text, failed) {
    toast.textContent = text;
    toast.className = failed ? 'show error' : 'show';
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { toast.className = failed ? 'error' : ''; }, failed ? 6000 : 3000);
  }

  // Keeps what the person is doing: an open list of choices, open error details, chosen times.
  function swap(el, markup) {
    var active = document.activeElement;
    if (active && el.contains(active) && (active.tagName === 'SELECT' || active.tagName === 'INPUT')) return false;
    var open = {}, chosen = {};
    el.querySelectorAll('details[open][data-key]').forEach(function (d) { open[d.getAttribute('data-key')] = true; });
    el.querySelectorAll('select[data-key]').forEach(function (s) { chosen[s.getAttribute('data-key')] = s.value; });
    el.innerHTML = markup;
    el.querySelectorAll('details[data-key]').forEach(function (d) { if (open[d.getAttribute('data-key')]) d.open = true; });
    el.querySelectorAll('select[data-key]').forEach(function (s) {
      var value = chosen[s.getAttribute('data-key')];
      if (value !== undefined) s.value = value;
    });
    return true;
  }

  function apply(body) {
    // A queue appeared after a first paint that had none: its sections need the whole page.
    if (body.selected && !root.querySelector('[data-fragment="summary"]')) return location.reload();
    Object.keys(body.fragments).forEach(function (name) {
      var el = root.querySelector('[data-fragment="' + name + '"]');
      if (el && shown[name] !== body.fragments[name] && swap(el, body.fragments[name])) shown[name] = body.fragments[name];
    });
    root.setAttribute('data-now', String(body.now));
    // The server's clock, in the one zone the page shows every time in.
    setLive('live', 'live · updated ' + new Date(body.now).toISOString().slice(11, 19) + ' UTC');
  }

  function load() {
    var url = config.api + '?fragments=1' + (config.queue ? '&queue=' + encodeURIComponent(config.queue) : '') +
      (config.hash ? '&hash=' + encodeURIComponent(config.hash) : '');
    return fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (res) {
        if (res.ok) return res.json();
        return res.json().catch(function () { return {}; }).then(function (body) {
          throw new Error(body.error ? body.error.message : 'HTTP ' + res.status);
        });
      })
      .then(apply)
      .catch(function (err) { setLive('error', 'not updating: ' + err.message); });
  }

  // One read at a time. A write during a read asks for one more read after it: the read in
  // flight may have started before the write.
  function refresh(afterWrite) {
    if (reading) {
      again = again || afterWrite;
      return;
    }
    reading = true;
    load().then(function () {
      reading = false;
      if (again) {
        again = false;
        refresh(false);
      }
    });
  }

  function post(form) {
    var fields = {};
    new FormData(form).forEach(function (value, key) { if (key !== 'csrf') fields[key] = value; });
    return fetch(form.getAttribute('action'), {
      method: 'POST', credentials: 'same-origin', body: JSON.stringify(fields),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': config.csrf }
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) {
        if (!res.ok) throw new Error(body.error ? body.error.message : 'HTTP ' + res.status);
        return body;
      });
    });
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute('data-action')) return;
    event.preventDefault();
    var question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) return;
    var button = form.querySelector('button');
    if (button) button.disabled = true;
    var ok = false;
    post(form)
      .then(function () { ok = true; say(DONE[form.getAttribute('data-action')] || 'Done', false); })
      .catch(function (err) { say(err.message, true); })
      .then(function () {
        if (button) button.disabled = false;
        // A page without live refresh (a list, a task) is read again whole once the toast is seen.
        if (!config.api) return void (ok && setTimeout(function () { location.reload(); }, 700));
        return refresh(true);
      });
  });

  if (!config.api) return;
  document.addEventListener('visibilitychange', function () { if (!document.hidden) refresh(false); });
  setInterval(function () { if (!document.hidden) refresh(false); }, config.interval);
  setLive('live', 'live');
  refresh(false);
})();
`;
