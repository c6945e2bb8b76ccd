// Serializes the visible DOM to simplified HTML for markdown conversion.
// Interactive elements are stamped with a persistent numeric id (attribute `attr`)
// and wrapped as <sa-i id=.. new=.. d="descriptor">children</sa-i>.
// Viewport edges are marked in the text with the `top` and `bottom` sentinels.
(args) => {
  const { attr, frameAttr, nextId, maxElements, maxOptions, maxValue, maxUrl, top, bottom, frameOpen, frameClose, viewport } = args;
  let next = nextId;
  let walked = 0;
  let indexed = 0;
  let fresh = 0;
  let truncated = false;
  const firstVisit = !window.__stateactSeen;
  window.__stateactSeen = true;
  const seenIds = new Set();
  const out = [];
  const vh = window.innerHeight;
  const scrollY = Math.round(window.scrollY);
  const scrollHeight = Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  let topState = viewport && scrollY > 0 ? 'pending' : 'done';
  let bottomState = viewport && scrollY + vh < scrollHeight - 1 ? 'pending' : 'done';
  const frames = [];
  let frameCounter = window.__stateactFrames || 0;
  const framePrefix = window.__stateactFramePrefix || (window.__stateactFramePrefix = Math.random().toString(36).slice(2, 8));

  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'svg', 'SVG', 'CANVAS', 'OBJECT', 'EMBED']);
  const KEEP = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'P', 'UL', 'OL', 'LI', 'TABLE', 'THEAD', 'TBODY', 'TFOOT',
    'TR', 'TH', 'TD', 'CAPTION', 'PRE', 'CODE', 'BLOCKQUOTE', 'STRONG', 'B', 'EM', 'I', 'DL', 'DT', 'DD']);
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'combobox', 'switch', 'textbox', 'searchbox', 'slider', 'spinbutton', 'listbox', 'treeitem']);
  const TEXT_INPUTS = new Set(['text', 'search', 'email', 'url', 'tel', 'number', 'password', 'date', 'time',
    'datetime-local', 'month', 'week', 'color', 'range']);

  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const quote = (s) => JSON.stringify(String(s).length > maxValue ? String(s).slice(0, maxValue) + '…' : String(s));
  const styleOf = (el) => el.ownerDocument.defaultView.getComputedStyle(el);

  function shortUrl(raw) {
    if (!raw || raw.startsWith('javascript:')) return '';
    let url = raw;
    try {
      const u = new URL(raw, document.baseURI);
      const samePage = u.origin === location.origin && u.pathname === location.pathname && u.search === location.search;
      url = samePage && u.hash ? u.hash : u.origin === location.origin ? u.pathname + u.search + u.hash : u.href;
    } catch (e) { /* keep raw */ }
    if (url.startsWith('data:')) return 'data:…';
    return url.length > maxUrl ? url.slice(0, maxUrl) + '…' : url;
  }

  // 2: a control by nature (link, button, input, ARIA widget); 1: clickable by hint only
  // (a click handler, tabindex, a pointer cursor its parent lacks); 0: not interactive.
  function interactivity(el, style) {
    const tag = el.tagName;
    if (tag === 'A') return el.hasAttribute('href') ? 2 : 0;
    if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'SUMMARY') return 2;
    if (tag === 'INPUT') return el.type !== 'hidden' ? 2 : 0;
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return 2;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 2;
    if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return 1;
    const tabindex = el.getAttribute('tabindex');
    if (tabindex !== null && parseInt(tabindex, 10) >= 0) return 1;
    if (style.cursor === 'pointer') {
      const parent = el.assignedSlot || el.parentElement || el.getRootNode().host;
      return !parent || styleOf(parent).cursor !== 'pointer' ? 1 : 0;
    }
    return 0;
  }

  function label(el) {
    return el.getAttribute('aria-label') || el.getAttribute('title') || '';
  }

  function describe(el) {
    const tag = el.tagName.toLowerCase();
    const parts = [];
    const add = (name, value) => { if (value !== null && value !== undefined && value !== '') parts.push(`${name}=${quote(value)}`); };
    if (tag === 'input') {
      const type = el.type || 'text';
      parts.push(`type=${type}`);
      add('name', el.name);
      if (type === 'checkbox' || type === 'radio') {
        if (el.checked) parts.push('checked');
        add('label', label(el));
      } else if (type === 'file') {
        add('accept', el.accept);
        if (el.files && el.files.length) add('files', Array.from(el.files).map((f) => f.name).join(', '));
      } else if (type === 'submit' || type === 'button' || type === 'reset' || type === 'image') {
        add('value', el.value || label(el));
      } else {
        add('label', label(el));
        add('placeholder', el.placeholder);
        parts.push(`value=${type === 'password' && el.value ? '"' + '•'.repeat(Math.min(el.value.length, 8)) + '"' : quote(el.value)}`);
      }
    } else if (tag === 'textarea') {
      add('name', el.name);
      add('label', label(el));
      add('placeholder', el.placeholder);
      parts.push(`value=${quote(el.value)}`);
    } else if (tag === 'select') {
      add('name', el.name);
      add('label', label(el));
      const options = Array.from(el.options);
      const chosen = options.filter((o) => o.selected).map((o) => o.label || o.text);
      parts.push(`selected=${JSON.stringify(el.multiple ? chosen : (chosen[0] ?? ''))}`);
      if (el.multiple) parts.push('multiple');
      const names = options.slice(0, maxOptions).map((o) => o.label || o.text);
      const more = options.length > maxOptions ? ` +${options.length - maxOptions} more` : '';
      parts.push(`options=${JSON.stringify(names)}${more}`);
    } else if (tag === 'a') {
      return '';
    } else {
      const role = el.getAttribute('role');
      if (role) parts.push(`role=${role}`);
      if (el.isContentEditable) parts.push('contenteditable');
      for (const aria of ['aria-expanded', 'aria-selected', 'aria-checked', 'aria-pressed']) {
        const v = el.getAttribute(aria);
        if (v !== null) parts.push(`${aria.slice(5)}=${v}`);
      }
      if (!el.innerText || !el.innerText.trim()) add('label', label(el));
    }
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') parts.push('disabled');
    if (el.readOnly) parts.push('readonly');
    return `<${tag}${parts.length ? ' ' + parts.join(' ') : ''}>`;
  }

  function stamp(el) {
    let id = parseInt(el.getAttribute(attr), 10);
    let isNew = false;
    if (!Number.isFinite(id) || seenIds.has(id)) {
      id = next++;
      el.setAttribute(attr, String(id));
      isNew = !firstVisit;
    }
    seenIds.add(id);
    indexed++;
    if (isNew) fresh++;
    return { id, isNew };
  }

  function markViewport(el, inTopDocument) {
    if (!inTopDocument || (topState === 'done' && bottomState === 'done')) return;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) return;
    if (topState === 'pending' && rect.bottom > 0) { out.push(top); topState = 'done'; }
    if (topState === 'done' && bottomState === 'pending' && rect.top >= vh) { out.push(bottom); bottomState = 'done'; }
  }

  function walkChildren(node, inTop, inside) {
    const root = node.shadowRoot || node;
    const kids = node.tagName === 'SLOT' && node.assignedNodes().length ? node.assignedNodes() : root.childNodes;
    for (const child of kids) walk(child, inTop, inside);
  }

  // `inside`: an ancestor is indexed, so elements clickable only by hint are part of it.
  function walk(node, inTop, inside) {
    if (truncated) return;
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.nodeValue;
      if (text && text.trim()) {
        if (node.parentElement) markViewport(node.parentElement, inTop);
        out.push(esc(text));
      }
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (++walked > maxElements) { truncated = true; return; }
    const el = node;
    const tag = el.tagName;
    if (SKIP.has(tag)) return;
    const style = styleOf(el);
    // display:contents (slots, wrappers) has no box of its own, so checkVisibility() is false for it.
    if (style.display !== 'contents' && el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return;

    if (tag === 'IFRAME' || tag === 'FRAME') {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      if (doc && doc.body) {
        out.push('<div>');
        walk(doc.body, false, false);
        out.push('</div>');
      } else {
        // Another origin: the caller serializes that frame itself and puts it where this placeholder is.
        let key = el.getAttribute(frameAttr);
        if (!key) { key = `${framePrefix}-${++frameCounter}`; el.setAttribute(frameAttr, key); }
        frames.push(key);
        out.push(`<div>${frameOpen}${key}${frameClose}</div>`);
      }
      return;
    }
    if (tag === 'IMG') {
      const alt = el.getAttribute('alt') || el.getAttribute('title');
      if (alt) out.push(`[image: ${esc(alt)}]`);
      if (!interactivity(el, style)) return;
    }

    if (tag === 'BR' || tag === 'HR') { out.push(`<${tag.toLowerCase()}>`); return; }
    let close = '';
    if (KEEP.has(tag)) {
      const attrs = (tag === 'TD' || tag === 'TH') && el.colSpan > 1 ? ` colspan="${el.colSpan}"` : '';
      out.push(`<${tag.toLowerCase()}${attrs}>`);
      close = `</${tag.toLowerCase()}>`;
    } else if (style.display && !style.display.startsWith('inline') && style.display !== 'contents') {
      out.push('<div>');
      close = '</div>';
    }

    let opened = '';
    const level = interactivity(el, style);
    if (level === 2 || (level === 1 && !inside)) {
      const rect = el.getBoundingClientRect();
      const control = tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA';
      if (control || rect.width > 0 || rect.height > 0) {
        markViewport(el, inTop);
        const { id, isNew } = stamp(el);
        out.push(`<sa-i id="${id}" new="${isNew ? 1 : 0}" d="${esc(describe(el))}">`);
        opened = '</sa-i>';
        if (control) { out.push(opened, close); return; }
        if (tag === 'A') {
          out.push(`<a href="${esc(shortUrl(el.getAttribute('href')))}">`);
          if (!el.innerText || !el.innerText.trim()) out.push(esc(label(el) || el.querySelector('img[alt]')?.alt || ''));
          opened = '</a>' + opened;
        }
      }
    }

    walkChildren(el, inTop, inside || opened !== '');
    out.push(opened, close);
  }

  if (document.body) walk(document.body, true, false);
  window.__stateactFrames = frameCounter;
  return {
    html: out.join(''),
    frames,
    nextId: next,
    indexed,
    fresh,
    truncated,
    title: document.title,
    url: location.href,
    scrollY,
    scrollHeight,
    viewportHeight: vh,
    viewportWidth: window.innerWidth,
  };
}
