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
    'redrive-all': 'Dead tasks sent back to ready', 'run-now': 'Task runs now: it is due',
    'run-schedule': 'Schedule run: task put', 'pause-schedule': 'Schedule paused', 'resume-schedule': 'Schedule resumed' };
  // What a put said (add, run again): de-dup rules apply, so a duplicate is an answer, not an error.
  var PUT = { added: 'Task added', revived: 'Task added (it ran before)', replaced: 'Task added: it replaced a pending one',
    duplicate: 'Duplicate: an equal task is already queued, nothing added' };
  document.documentElement.classList.add('js');

  function done(action, body, form) {
    if (action === 'priority') return 'Priority set to ' + body.level;
    // The Groups tab's pause and resume act on one group, and an active task's cancel aborts its
    // handler rather than deleting it: each says what it did, not what the queue-wide one does.
    if (form.querySelector('input[name="group"]') && (action === 'pause' || action === 'resume')) return action === 'pause' ? 'Group paused' : 'Group resumed';
    if (action === 'cancel' && form.querySelector('input[name="running"]')) return 'Running task cancelled: its handler stops at its next heartbeat';
    if (body && body.status && PUT[body.status]) return PUT[body.status];
    return DONE[action] || 'Done';
  }

  // A log box opens at its newest line (the last); one a person scrolled up in stays where it was.
  function logsToNewest(el, kept) {
    el.querySelectorAll('ol.logs').forEach(function (box) {
      var key = box.getAttribute('data-key');
      var was = kept && key ? kept[key] : undefined;
      box.scrollTop = was === undefined || was.atEnd ? box.scrollHeight : was.top;
    });
  }

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
    var open = {}, chosen = {}, logs = {};
    el.querySelectorAll('ol.logs[data-key]').forEach(function (box) {
      logs[box.getAttribute('data-key')] = { top: box.scrollTop, atEnd: box.scrollTop + box.clientHeight >= box.scrollHeight - 4 };
    });
    el.querySelectorAll('details[open][data-key]').forEach(function (d) { open[d.getAttribute('data-key')] = true; });
    el.querySelectorAll('select[data-key]').forEach(function (s) { chosen[s.getAttribute('data-key')] = s.value; });
    el.innerHTML = markup;
    el.querySelectorAll('details[data-key]').forEach(function (d) { if (open[d.getAttribute('data-key')]) d.open = true; });
    el.querySelectorAll('select[data-key]').forEach(function (s) {
      var value = chosen[s.getAttribute('data-key')];
      if (value !== undefined) s.value = value;
    });
    logsToNewest(el, logs);
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
      (config.hash ? '&hash=' + encodeURIComponent(config.hash) : '') + (config.span === '24h' ? '&span=24h' : '');
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

  // The add form's data must be JSON: checked here before it is sent (and again by the server).
  function jsonError(form) {
    var area = form.querySelector('textarea[data-json]');
    if (!area) return null;
    var shown = form.querySelector('[data-json-error]');
    try {
      JSON.parse(area.value);
      area.removeAttribute('aria-invalid');
      if (shown) shown.textContent = '';
      return null;
    } catch (err) {
      var text = 'data: not valid JSON (' + err.message + ')';
      area.setAttribute('aria-invalid', 'true');
      if (shown) shown.textContent = text;
      return text;
    }
  }

  // A form that stays (the add form) says what happened in place, with a link to the task.
  function result(form, text, body) {
    var box = form.querySelector('[data-result]');
    if (!box) return;
    box.textContent = text + ' ';
    if (!body || !body.hash) return;
    var base = form.getAttribute('action').replace(/[/]api[/][a-z-]+$/, '');
    var link = document.createElement('a');
    link.href = base + '/task?queue=' + encodeURIComponent(body.queue) + '&hash=' + encodeURIComponent(body.hash);
    link.textContent = body.hash;
    link.setAttribute('data-added', body.status || '');
    box.appendChild(link);
  }

  document.addEventListener('change', function (event) {
    var field = event.target;
    var form = field.form;
    if (field.tagName === 'SELECT' && form && form.hasAttribute('data-auto')) form.requestSubmit();
  });

  document.addEventListener('input', function (event) {
    if (event.target.hasAttribute && event.target.hasAttribute('data-json') && event.target.form) jsonError(event.target.form);
  });

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute('data-action')) return;
    event.preventDefault();
    var bad = jsonError(form);
    if (bad) return say(bad, true);
    var question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) return;
    var button = form.querySelector('button');
    if (button) button.disabled = true;
    var ok = false;
    var stay = form.hasAttribute('data-stay');
    post(form)
      .then(function (body) {
        ok = true;
        var text = done(form.getAttribute('data-action'), body, form);
        say(text, false);
        result(form, text, body);
      })
      .catch(function (err) { say(err.message, true); result(form, err.message, null); })
      .then(function () {
        if (button) button.disabled = false;
        // A choice that posted on its own lets go of the focus, so the refresh can redraw its row.
        if (document.activeElement && form.contains(document.activeElement)) document.activeElement.blur();
        if (stay) return;
        // A page without live refresh (a list, a task) is read again whole once the toast is seen.
        if (!config.api) return void (ok && setTimeout(function () { location.reload(); }, 700));
        return refresh(true);
      });
  });

  logsToNewest(document);
  if (!config.api) return;
  document.addEventListener('visibilitychange', function () { if (!document.hidden) refresh(false); });
  setInterval(function () { if (!document.hidden) refresh(false); }, config.interval);
  setLive('live', 'live');
  refresh(false);
})();
`;
