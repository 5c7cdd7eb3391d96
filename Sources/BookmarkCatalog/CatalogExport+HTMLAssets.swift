// SPDX-License-Identifier: Apache-2.0

/// The HTML page's fixed parts: its markup, style and script. They hold no data: the script reads
/// the catalog from the `catalog-data` element and builds every node that shows a name with
/// `createElement` and `textContent` (no `innerHTML`, no `insertAdjacentHTML`, no `document.write`).
/// The style and script are hashed for the page's Content-Security-Policy, so an edit here needs no
/// other change.
enum ExportHTMLAssets {
    /// The page's skeleton, filled in by the script.
    static let body = """
        <div class="app">
        <header class="top">
          <div class="heading">
            <h1 id="title">Catalog</h1>
            <p id="stats" class="stats"></p>
          </div>
          <section class="volume" aria-labelledby="volume-name">
            <h2 id="volume-name"></h2>
            <dl id="volume-facts"></dl>
          </section>
        </header>
        <div class="toolbar">
          <div class="search">
            <input id="search" type="search" placeholder="Search every name (a / in it searches whole paths)" autocomplete="off" spellcheck="false" aria-label="Search the whole catalog" aria-controls="results">
            <div id="results" class="results" hidden>
              <div class="results-head"><span id="results-status" role="status"></span><button id="results-close" type="button" aria-label="Close the results">\u{00D7}</button></div>
              <ol id="results-list"></ol>
            </div>
          </div>
        </div>
        <main class="panes">
          <nav class="tree" aria-label="Folders"><ul id="tree" role="tree"></ul></nav>
          <section class="listing" aria-label="Folder contents">
            <nav id="crumbs" class="crumbs" aria-label="Breadcrumbs"></nav>
            <p id="summary" class="summary"></p>
            <button id="earlier" class="more" type="button" hidden></button>
            <table class="files">
              <thead><tr>
                <th data-sort="name" aria-sort="ascending"><button type="button" data-sort="name">Name <span class="arrow"></span></button></th>
                <th data-sort="size" class="num" aria-sort="none"><button type="button" data-sort="size">Size <span class="arrow"></span></button></th>
                <th data-sort="date" class="date" aria-sort="none"><button type="button" data-sort="date">Modified <span class="arrow"></span></button></th>
              </tr></thead>
              <tbody id="files-body"></tbody>
            </table>
            <p id="empty" class="empty" hidden>This folder is empty.</p>
            <button id="more" class="more" type="button" hidden></button>
          </section>
        </main>
        <noscript>This catalog is shown by the script inside this file; turn JavaScript on to browse it.</noscript>
        </div>

        """

    /// The page's style sheet (light and dark).
    static let style = """
        :root { color-scheme: light dark; --bg: #f5f6f8; --panel: #fff; --text: #1c2230; --muted: #5b6476; --line: #dce0e7;
          --accent: #2459c9; --accent-soft: #e3ebfb; --hit: #fff1b8; --folder: #e3ab35; }
        @media (prefers-color-scheme: dark) { :root { --bg: #14171d; --panel: #1c2028; --text: #e5e8ee; --muted: #99a2b4;
          --line: #2f3541; --accent: #7ea6ff; --accent-soft: #22324f; --hit: #4a421f; --folder: #d39f34; } }
        * { box-sizing: border-box; }
        html, body { height: 100%; margin: 0; }
        body { font: 14px/1.45 system-ui, "Segoe UI", Roboto, "Liberation Sans", "DejaVu Sans", sans-serif; background: var(--bg); color: var(--text); }
        button { font: inherit; color: inherit; }
        .app { display: flex; flex-direction: column; height: 100vh; }
        header.top { display: flex; flex-wrap: wrap; gap: 12px 32px; align-items: flex-start; justify-content: space-between;
          padding: 14px 20px 12px; background: var(--panel); border-bottom: 1px solid var(--line); }
        h1 { font-size: 20px; margin: 0 0 2px; }
        .stats { margin: 0; color: var(--muted); }
        .volume { min-width: 0; }
        .volume h2 { font-size: 15px; margin: 0 0 4px; }
        .volume dl { display: grid; grid-template-columns: repeat(3, auto); gap: 2px 20px; margin: 0; font-size: 12.5px; }
        .fact { display: flex; gap: 6px; min-width: 0; }
        .fact dt { color: var(--muted); white-space: nowrap; }
        .fact dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; overflow-wrap: anywhere; }
        .toolbar { padding: 10px 20px; background: var(--panel); border-bottom: 1px solid var(--line); }
        .search { position: relative; max-width: 680px; }
        #search { width: 100%; padding: 7px 10px; font: inherit; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--text); }
        #search:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
        .results { position: absolute; z-index: 10; top: calc(100% + 4px); left: 0; right: 0; max-height: 60vh; overflow: auto;
          background: var(--panel); border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 8px 24px rgba(0, 0, 0, .18); }
        .results-head { position: sticky; top: 0; display: flex; justify-content: space-between; align-items: center; padding: 6px 10px;
          background: var(--panel); border-bottom: 1px solid var(--line); color: var(--muted); }
        .results-head button { border: 0; background: none; font-size: 18px; line-height: 1; cursor: pointer; color: var(--muted); }
        .results ol { list-style: none; margin: 0; padding: 0; }
        .results li button { display: block; width: 100%; text-align: left; padding: 5px 10px; border: 0; background: none; cursor: pointer; }
        .results li button:hover, .results li button:focus { background: var(--accent-soft); }
        .hit-name { font-weight: 600; overflow-wrap: anywhere; }
        .hit-path { display: block; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
        .more-note { padding: 6px 10px; color: var(--muted); font-style: italic; }
        .panes { flex: 1; display: grid; grid-template-columns: minmax(240px, 32%) 1fr; min-height: 0; }
        nav.tree { overflow: auto; padding: 8px 6px; border-right: 1px solid var(--line); background: var(--panel); }
        .tree ul, ul.tree { list-style: none; margin: 0; padding: 0; }
        #tree ul { padding-left: 16px; }
        .row { display: flex; align-items: center; border-radius: 4px; white-space: nowrap; }
        .row.selected { background: var(--accent-soft); }
        .toggle { flex: none; width: 20px; border: 0; background: none; color: var(--muted); cursor: pointer; font-size: 12px; padding: 0; }
        .toggle.leaf { visibility: hidden; }
        .label { display: flex; align-items: center; gap: 6px; border: 0; background: none; padding: 2px 4px; cursor: pointer; min-width: 0; }
        .label .name { overflow: hidden; text-overflow: ellipsis; }
        .meta { color: var(--muted); font-size: 12px; margin-left: 6px; }
        .badge { font-size: 11px; padding: 0 6px; border-radius: 8px; background: var(--accent-soft); color: var(--accent); }
        .icon { display: inline-block; flex: none; width: 14px; height: 11px; border-radius: 2px; vertical-align: -1px; }
        .icon.folder { background: var(--folder); }
        .icon.volume { background: var(--muted); height: 10px; border-radius: 3px; }
        .icon.file, .icon.link { width: 10px; height: 13px; border: 1px solid var(--muted); border-radius: 1px; background: var(--panel); }
        .icon.link { border: 1px dashed var(--accent); }
        .icon.other { width: 10px; height: 10px; border-radius: 50%; background: var(--muted); }
        .listing { overflow: auto; padding: 10px 20px 20px; min-width: 0; }
        .crumbs { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 4px; font-size: 14px; }
        .crumb { border: 0; background: none; padding: 2px 4px; color: var(--accent); cursor: pointer; border-radius: 4px; overflow-wrap: anywhere; text-align: left; }
        .crumb:hover { background: var(--accent-soft); }
        .crumb.current { color: var(--text); font-weight: 600; cursor: default; }
        .sep { color: var(--muted); }
        .summary { color: var(--muted); margin: 4px 0 10px; }
        table.files { width: 100%; border-collapse: collapse; table-layout: fixed; }
        .files th { text-align: left; font-weight: 600; border-bottom: 1px solid var(--line); padding: 0; position: sticky; top: 0; background: var(--bg); }
        .files th button { width: 100%; text-align: inherit; padding: 6px 8px; border: 0; background: none; cursor: pointer; }
        .files th.num { text-align: right; width: 110px; }
        .files th.date { width: 150px; }
        .files td { padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        .files td.size, .files td.date { white-space: nowrap; color: var(--muted); font-variant-numeric: tabular-nums; }
        .files td.size { text-align: right; }
        .files td.name { overflow-wrap: anywhere; }
        .files td.name .icon { margin-right: 8px; }
        .files .open { border: 0; background: none; padding: 0; color: var(--accent); cursor: pointer; text-align: left; }
        .files .target { color: var(--muted); margin-left: 8px; }
        .files tr.hit td { background: var(--hit); }
        .arrow { color: var(--accent); }
        .more { margin: 10px 0; padding: 6px 12px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); cursor: pointer; }
        .empty { color: var(--muted); }
        button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
        noscript { display: block; padding: 20px; }
        @media (max-width: 720px) { .panes { grid-template-columns: 1fr; grid-template-rows: 40% 60%; }
          nav.tree { border-right: 0; border-bottom: 1px solid var(--line); } }

        """

    /// The page's script. It must never hold `</script` or `<!--` (a test checks).
    static let script = #"""
        'use strict';
        (() => {
          const LIST_PAGE = 500;      // rows added to the file list at a time
          const SEARCH_LIMIT = 200;   // results listed; the rest are counted
          const SEARCH_DELAY = 150;   // ms of quiet typing before a search runs
          const started = performance.now();
          const byId = (id) => document.getElementById(id);
          const element = (tag, className, text) => {
            const node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined) node.textContent = text;
            return node;
          };
          const data = JSON.parse(byId('catalog-data').textContent);
          const roots = Array.isArray(data.roots) ? data.roots : [];

          // The model: every root's parallel arrays in one index space. A parent is always before
          // its child, so one backward pass sums the folders.
          let count = 0;
          for (const root of roots) count += root.names.length;
          const name = new Array(count);
          const parent = new Int32Array(count);
          const kind = new Uint8Array(count);
          const size = new Float64Array(count);
          const mtime = new Float64Array(count);
          const rootOf = new Int32Array(count);
          const linkTarget = new Map();
          const tops = [];
          const DIR = 100;  // 'd'
          let base = 0;
          roots.forEach((root, rootIndex) => {
            const length = root.names.length;
            const top = [];
            for (let i = 0; i < length; i++) {
              const at = base + i;
              const p = root.parents[i];
              name[at] = String(root.names[i]);
              parent[at] = p >= 0 && p < i ? base + p : -1;
              kind[at] = root.kinds.charCodeAt(i) || 111;
              size[at] = Number(root.sizes[i]) || 0;
              mtime[at] = Number(root.mtimes[i]) || 0;
              rootOf[at] = rootIndex;
              if (parent[at] < 0) top.push(at);
            }
            for (const [i, target] of root.links) if (i >= 0 && i < length) linkTarget.set(base + i, String(target));
            tops.push(top);
            base += length;
          });
          const isDir = (i) => kind[i] === DIR;

          const childCount = new Int32Array(count);
          for (let i = 0; i < count; i++) if (parent[i] >= 0) childCount[parent[i]]++;
          const childStart = new Int32Array(count + 1);
          for (let i = 0; i < count; i++) childStart[i + 1] = childStart[i] + childCount[i];
          const childList = new Int32Array(childStart[count]);
          const fill = childStart.slice(0, count);
          for (let i = 0; i < count; i++) { const p = parent[i]; if (p >= 0) childList[fill[p]++] = i; }
          const children = (i) => childList.subarray(childStart[i], childStart[i + 1]);

          const total = new Float64Array(count);    // bytes of everything inside, recursively
          const files = new Float64Array(count);    // non-folders inside, recursively
          const folders = new Float64Array(count);  // folders inside, recursively
          const subfolders = new Int32Array(count); // folders directly inside
          for (let i = count - 1; i >= 0; i--) {
            const folder = isDir(i);
            if (!folder) total[i] += size[i];
            const p = parent[i];
            if (p < 0) continue;
            total[p] += total[i];
            files[p] += files[i] + (folder ? 0 : 1);
            folders[p] += folders[i] + (folder ? 1 : 0);
            if (folder) subfolders[p]++;
          }

          // Formatting.
          const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
          const formatSize = (bytes) => {
            if (bytes < 1024) return bytes + ' B';
            let value = bytes, unit = 0;
            while (value >= 1024 && unit < UNITS.length - 1) { value /= 1024; unit++; }
            return (value < 10 ? value.toFixed(1) : String(Math.round(value))) + ' ' + UNITS[unit];
          };
          const two = (value) => String(value).padStart(2, '0');
          const formatDate = (milliseconds) => {
            const date = new Date(milliseconds);
            if (Number.isNaN(date.getTime())) return '';
            return date.getFullYear() + '-' + two(date.getMonth() + 1) + '-' + two(date.getDate()) + ' ' +
              two(date.getHours()) + ':' + two(date.getMinutes());
          };
          const number = (value) => value.toLocaleString('en-US');
          const plural = (value, one, many) => number(value) + ' ' + (value === 1 ? one : many);
          const kindClass = (i) => (kind[i] === DIR ? (parent[i] < 0 ? 'volume' : 'folder') :
            kind[i] === 108 ? 'link' : kind[i] === 102 ? 'file' : 'other');
          const pathOf = (i) => {
            const parts = [];
            for (let j = i; j >= 0; j = parent[j]) parts.push(name[j]);
            parts.reverse();
            let path = parts[0] || '';
            for (let k = 1; k < parts.length; k++) path += (path.endsWith('/') ? '' : '/') + parts[k];
            return path;
          };
          // Names sort by a key made once per name: without case and accents, and with runs of
          // digits padded so that file9 comes before file10. Comparing keys with < is several
          // times faster than Intl.Collator, which counts in a folder of 100,000 files.
          const sortKeys = new Array(count);
          const DIACRITICS = /[\u0300-\u036f]/g;
          const keyOf = (i) => {
            let key = sortKeys[i];
            if (key === undefined) {
              const text = /[^\x00-\x7f]/.test(name[i]) ? name[i].normalize('NFD').replace(DIACRITICS, '') : name[i];
              key = sortKeys[i] = text.toLowerCase().replace(/\d+/g, (digits) => digits.padStart(20, '0'));
            }
            return key;
          };
          const byName = (a, b) => {
            const x = keyOf(a), y = keyOf(b);
            if (x !== y) return x < y ? -1 : 1;
            return name[a] < name[b] ? -1 : name[a] > name[b] ? 1 : a - b;
          };

          // Header.
          byId('title').textContent = typeof data.title === 'string' ? data.title : 'Catalog';
          let allFiles = 0, allFolders = 0, allBytes = 0;
          for (const top of tops) for (const i of top) { allFiles += files[i]; allFolders += folders[i]; allBytes += total[i]; }
          byId('stats').textContent = plural(roots.length, 'root', 'roots') + ' \u00b7 ' + plural(allFiles, 'file', 'files') +
            ' \u00b7 ' + plural(allFolders, 'folder', 'folders') + ' \u00b7 ' + formatSize(allBytes);
          let shownVolume = -1;
          const showVolume = (rootIndex) => {
            if (rootIndex === shownVolume) return;
            shownVolume = rootIndex;
            const root = roots[rootIndex];
            const volume = root.volume || {};
            byId('volume-name').textContent = 'Volume ' + (volume.label || volume.uuid || volume.source || '');
            const facts = byId('volume-facts');
            facts.replaceChildren();
            const fact = (term, value, title) => {
              const item = element('div', 'fact');
              const detail = element('dd', null, value);
              if (title) detail.title = title;
              item.append(element('dt', null, term), detail);
              facts.appendChild(item);
            };
            fact('Label', volume.label || '\u2014');
            fact('UUID', volume.uuid || 'none', volume.uuidSource ? 'from ' + volume.uuidSource : '');
            fact('File system', volume.fsType || '');
            fact('Mount point', volume.mountPoint || '');
            fact('Device', volume.source || '');
            fact('Scanned', formatDate(Number(root.scannedMs)), root.scanned);
          };

          // The folder tree: a folder's subfolders are made when it is first expanded, and dropped
          // when it is collapsed.
          const tree = byId('tree');
          const treeItems = new Map();
          const expanded = new Uint8Array(count);
          const treeItem = (i) => {
            const item = element('li', 'node');
            item.setAttribute('role', 'treeitem');
            item.dataset.node = String(i);
            const row = element('div', 'row');
            const toggle = element('button', 'toggle');
            toggle.type = 'button';
            if (subfolders[i] > 0) {
              toggle.textContent = '\u25b8';
              toggle.setAttribute('aria-label', 'Expand');
              toggle.addEventListener('click', () => setExpanded(i, !expanded[i]));
              item.setAttribute('aria-expanded', 'false');
            } else {
              toggle.classList.add('leaf');
              toggle.tabIndex = -1;
            }
            const label = element('button', 'label');
            label.type = 'button';
            label.append(element('span', 'icon ' + kindClass(i)), element('span', 'name', name[i]));
            if (parent[i] < 0) {
              const volume = roots[rootOf[i]].volume || {};
              label.appendChild(element('span', 'badge', volume.label || volume.fsType || 'volume'));
            }
            label.title = pathOf(i);
            label.addEventListener('click', () => openFolder(i));
            const meta = element('span', 'meta', formatSize(total[i]));
            meta.title = plural(files[i], 'file', 'files') + ', ' + plural(folders[i], 'folder', 'folders');
            row.append(toggle, label, meta);
            item.appendChild(row);
            treeItems.set(i, item);
            return item;
          };
          const setExpanded = (i, open) => {
            const item = treeItems.get(i);
            if (!item || subfolders[i] === 0) return;
            expanded[i] = open ? 1 : 0;
            item.setAttribute('aria-expanded', String(open));
            const toggle = item.querySelector('.toggle');
            toggle.textContent = open ? '\u25be' : '\u25b8';
            toggle.setAttribute('aria-label', open ? 'Collapse' : 'Expand');
            let group = item.querySelector(':scope > ul');
            if (open && !group) {
              group = element('ul');
              group.setAttribute('role', 'group');
              const subs = Array.from(children(i)).filter(isDir).sort(byName);
              const fragment = document.createDocumentFragment();
              for (const child of subs) fragment.appendChild(treeItem(child));
              group.appendChild(fragment);
              item.appendChild(group);
            } else if (!open && group) {
              for (const inner of group.querySelectorAll('li')) {
                const node = Number(inner.dataset.node);
                treeItems.delete(node);
                expanded[node] = 0;
              }
              group.remove();
            }
          };
          const treeFragment = document.createDocumentFragment();
          for (const top of tops) for (const i of top) treeFragment.appendChild(treeItem(i));
          tree.appendChild(treeFragment);

          // The current folder: breadcrumbs, summary and its entries, sorted.
          let current = -1;
          let sortKey = 'name';
          let sortDirection = 1;
          let rows = [];
          let first = 0;   // rows[first..<shown] are in the table
          let shown = 0;
          const rowItems = new Map();
          const body = byId('files-body');
          const more = byId('more');
          const earlier = byId('earlier');
          const sortRows = (i) => {
            const list = Array.from(children(i));
            const key = sortKey, direction = sortDirection;
            list.sort((a, b) => {
              const aFolder = isDir(a), bFolder = isDir(b);
              if (aFolder !== bFolder) return aFolder ? -1 : 1;  // folders first, in either direction
              let order = 0;
              if (key === 'size') order = (aFolder ? total[a] : size[a]) - (bFolder ? total[b] : size[b]);
              else if (key === 'date') order = mtime[a] - mtime[b];
              return direction * (order || byName(a, b));
            });
            return list;
          };
          const fileRow = (i) => {
            const row = element('tr', 'entry');
            row.dataset.node = String(i);
            const nameCell = element('td', 'name');
            nameCell.appendChild(element('span', 'icon ' + kindClass(i)));
            if (isDir(i)) {
              const open = element('button', 'open', name[i]);
              open.type = 'button';
              open.addEventListener('click', () => openFolder(i));
              nameCell.appendChild(open);
            } else {
              nameCell.appendChild(element('span', 'label-text', name[i]));
            }
            if (linkTarget.has(i)) nameCell.appendChild(element('span', 'target', '\u2192 ' + linkTarget.get(i)));
            const bytes = isDir(i) ? total[i] : size[i];
            const sizeCell = element('td', 'size', formatSize(bytes));
            sizeCell.title = number(bytes) + ' bytes' + (isDir(i) ? ' in ' + plural(files[i], 'file', 'files') : '');
            const dateCell = element('td', 'date', formatDate(mtime[i] * 1000));
            row.append(nameCell, sizeCell, dateCell);
            rowItems.set(i, row);
            return row;
          };
          const updateButtons = () => {
            const left = rows.length - shown;
            more.hidden = left <= 0;
            more.textContent = left > 0 ? 'Show ' + number(Math.min(LIST_PAGE, left)) + ' more (' + number(left) + ' below)' : '';
            earlier.hidden = first <= 0;
            earlier.textContent = first > 0 ? 'Show ' + number(Math.min(LIST_PAGE, first)) + ' earlier (' + number(first) + ' above)' : '';
          };
          const showRows = (limit) => {
            const end = Math.min(rows.length, limit);
            const fragment = document.createDocumentFragment();
            for (let k = shown; k < end; k++) fragment.appendChild(fileRow(rows[k]));
            body.appendChild(fragment);
            shown = end;
            updateButtons();
          };
          const showEarlier = () => {
            const start = Math.max(0, first - LIST_PAGE);
            const fragment = document.createDocumentFragment();
            for (let k = start; k < first; k++) fragment.appendChild(fileRow(rows[k]));
            body.insertBefore(fragment, body.firstChild);
            first = start;
            updateButtons();
          };
          const renderList = (highlight) => {
            rows = sortRows(current);
            body.replaceChildren();
            rowItems.clear();
            // A search hit far down a long list: the rows around it, with a button for those above.
            const at = highlight >= 0 ? rows.indexOf(highlight) : -1;
            first = shown = at >= LIST_PAGE ? at - 50 : 0;
            showRows(first + LIST_PAGE);
            byId('empty').hidden = rows.length > 0;
            for (const header of document.querySelectorAll('.files th')) {
              const active = header.dataset.sort === sortKey;
              header.setAttribute('aria-sort', active ? (sortDirection > 0 ? 'ascending' : 'descending') : 'none');
              header.querySelector('.arrow').textContent = active ? (sortDirection > 0 ? '\u25b2' : '\u25bc') : '';
            }
            const row = rowItems.get(highlight);
            if (row) {
              row.classList.add('hit');
              row.scrollIntoView({ block: 'center' });
            }
          };
          const renderCrumbs = (i) => {
            const crumbs = byId('crumbs');
            crumbs.replaceChildren();
            const chain = [];
            for (let j = i; j >= 0; j = parent[j]) chain.push(j);
            chain.reverse();
            chain.forEach((j, k) => {
              if (k > 0) crumbs.appendChild(element('span', 'sep', '\u203a'));
              if (j === i) {
                const here = element('span', 'crumb current', name[j]);
                here.setAttribute('aria-current', 'page');
                crumbs.appendChild(here);
              } else {
                const link = element('button', 'crumb', name[j]);
                link.type = 'button';
                link.addEventListener('click', () => openFolder(j));
                crumbs.appendChild(link);
              }
            });
          };
          const openFolder = (target) => {
            let folder = target, highlight = -1;
            if (!isDir(folder)) { highlight = folder; folder = parent[folder]; }
            if (folder < 0) return;
            current = folder;
            const chain = [];
            for (let j = parent[folder]; j >= 0; j = parent[j]) chain.push(j);
            for (const j of chain.reverse()) if (!expanded[j]) setExpanded(j, true);
            for (const row of tree.querySelectorAll('.row.selected')) { row.classList.remove('selected'); row.removeAttribute('aria-current'); }
            const item = treeItems.get(folder);
            if (item) {
              const row = item.querySelector('.row');
              row.classList.add('selected');
              row.setAttribute('aria-current', 'true');
              row.scrollIntoView({ block: 'nearest' });
            }
            showVolume(rootOf[folder]);
            renderCrumbs(folder);
            if (!expanded[folder]) setExpanded(folder, true);
            byId('summary').textContent = plural(subfolders[folder], 'folder', 'folders') + ' and ' +
              plural(childCount[folder] - subfolders[folder], 'file', 'files') + ' here \u00b7 ' +
              plural(files[folder], 'file', 'files') + ', ' + formatSize(total[folder]) + ' in all';
            renderList(highlight);
            document.documentElement.dataset.folder = String(folder);
          };
          for (const button of document.querySelectorAll('.files th button')) {
            button.addEventListener('click', () => {
              const key = button.dataset.sort;
              if (key === sortKey) sortDirection = -sortDirection; else { sortKey = key; sortDirection = 1; }
              if (current >= 0) renderList(-1);
            });
          }
          more.addEventListener('click', () => showRows(shown + LIST_PAGE));
          earlier.addEventListener('click', showEarlier);

          // Search: every name (or, with a '/', every path), case-insensitive, after a pause in typing.
          const search = byId('search');
          const results = byId('results');
          const resultList = byId('results-list');
          let lowerNames = null, lowerPaths = null, timer = 0;
          const runSearch = () => {
            const began = performance.now();
            const query = search.value.trim().toLowerCase();
            resultList.replaceChildren();
            if (!query) { results.hidden = true; return; }
            let haystack;
            if (query.includes('/')) {
              if (!lowerPaths) {
                lowerPaths = new Array(count);
                for (let i = 0; i < count; i++) {
                  const p = parent[i];
                  lowerPaths[i] = p < 0 ? name[i].toLowerCase() :
                    lowerPaths[p] + (lowerPaths[p].endsWith('/') ? '' : '/') + name[i].toLowerCase();
                }
              }
              haystack = lowerPaths;
            } else {
              if (!lowerNames) lowerNames = name.map((text) => text.toLowerCase());
              haystack = lowerNames;
            }
            const hits = [];
            let matches = 0;
            for (let i = 0; i < count; i++) {
              if (haystack[i].includes(query)) { matches++; if (hits.length < SEARCH_LIMIT) hits.push(i); }
            }
            const fragment = document.createDocumentFragment();
            for (const i of hits) {
              const item = element('li', 'result');
              item.dataset.node = String(i);
              const button = element('button');
              button.type = 'button';
              button.append(element('span', 'hit-name', name[i]), element('span', 'hit-path', pathOf(i)));
              button.addEventListener('click', () => openFolder(i));
              item.appendChild(button);
              fragment.appendChild(item);
            }
            if (matches > hits.length) {
              fragment.appendChild(element('li', 'more-note', number(matches - hits.length) + ' more not listed; type more to narrow the search'));
            }
            resultList.appendChild(fragment);
            byId('results-status').textContent = matches === 0 ? 'Nothing matches' : plural(matches, 'match', 'matches');
            results.hidden = false;
            results.dataset.query = query;
            results.dataset.milliseconds = (performance.now() - began).toFixed(1);
          };
          search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(runSearch, SEARCH_DELAY); });
          search.addEventListener('keydown', (event) => {
            if (event.key === 'Enter') { clearTimeout(timer); runSearch(); }
            if (event.key === 'Escape') { clearTimeout(timer); search.value = ''; runSearch(); }
          });
          byId('results-close').addEventListener('click', () => { results.hidden = true; search.focus(); });

          if (tops.length > 0 && tops[0].length > 0) {
            const first = tops[0][0];
            setExpanded(first, true);
            openFolder(first);
          } else {
            byId('summary').textContent = 'This catalog has no scanned roots.';
          }
          document.documentElement.dataset.readyMilliseconds = (performance.now() - started).toFixed(1);
          document.documentElement.dataset.ready = 'true';
        })();

        """#
}
