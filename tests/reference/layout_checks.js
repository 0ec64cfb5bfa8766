// The layout problems of the page shown, each naming the element and its figures (run by test_docs_browser.py).
// limits: imageScale (an image shown below it is illegible), proseChars and proseCellEm (a table cell of more
// than proseChars characters and three spaces, narrower than proseCellEm, is prose squeezed a word per line).
// wide (a desktop window): a worked example must also show its value column without scrolling; on a phone
// the table scrolls sideways in its box.
(limits, wide) => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth)
    problems.push(`page is ${root.scrollWidth} px wide in a ${root.clientWidth} px window`);
  for (const img of document.images) {
    if (!img.getClientRects().length) continue;  // not displayed
    if (!img.naturalWidth) { problems.push(`${img.getAttribute('src')} did not load`); continue; }
    const pan = img.closest('.diagram-pan');  // a diagram's box: fitted to the page, full size when focused
    if (pan && wide && img.getBoundingClientRect().width > pan.clientWidth + 1)
      problems.push(`${img.getAttribute('src')} is ${Math.round(img.getBoundingClientRect().width)} px wide ` +
                    `in a ${pan.clientWidth} px panel`);
    if (pan) pan.focus();
    const scale = img.getBoundingClientRect().width / img.naturalWidth;
    if (pan) pan.blur();
    if (scale < limits.imageScale)
      problems.push(`${img.getAttribute('src')} shown at ${scale.toFixed(2)} of its size ` +
                    `(${Math.round(img.getBoundingClientRect().width)} of ${img.naturalWidth} px)`);
  }
  for (const cell of document.querySelectorAll('td')) {
    const text = cell.textContent.trim();
    const em = parseFloat(getComputedStyle(cell).fontSize);
    if (text.includes('``')) problems.push(`literal backticks in a cell: ${text}`);
    const prose = text.length > limits.proseChars && (text.match(/ /g) || []).length >= 3;
    if (prose && cell.getBoundingClientRect().width < limits.proseCellEm * em)
      problems.push(`prose squeezed into ${Math.round(cell.getBoundingClientRect().width)} px: ${text.slice(0, 40)}`);
  }
  // an identifier (letters, digits, "_") split over two lines; a worked example's values may wrap anywhere
  const split = cell => {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), range = document.createRange();
    let previous = null;  // the last character seen and the top of its line
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      for (let i = 0; i < node.length; i++) {
        if (/\s/.test(node.data[i])) { previous = null; continue; }  // a line may break at a space
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (previous && rect.top > previous.top + 1 && /\w/.test(previous.char) && /\w/.test(node.data[i]))
          return `${previous.char}|${node.data[i]}`;
        previous = {char: node.data[i], top: rect.top};
      }
    return null;
  };
  for (const cell of document.querySelectorAll('td')) {
    if (!cell.getClientRects().length) continue;  // not displayed
    const header = cell.closest('table').querySelectorAll('th')[cell.cellIndex];
    if (header && header.textContent.trim() === 'value') continue;
    const at = split(cell);
    if (at) problems.push(`a cell splits an identifier (${at}): ${cell.textContent.trim().slice(0, 60)}`);
  }
  // annotated bytes (the worked examples): each field's bytes on one line, the value column on screen
  const visibleRight = el => {
    let right = root.clientWidth;
    for (let box = el.parentElement; box; box = box.parentElement)
      if (getComputedStyle(box).overflowX !== 'visible') right = Math.min(right, box.getBoundingClientRect().right);
    return right;
  };
  for (const table of document.querySelectorAll('table')) {
    const headers = [...table.querySelectorAll('th')].map(th => th.textContent.trim());
    const bytes = headers.indexOf('bytes'), value = headers.indexOf('value');
    if (bytes < 0 || value < 0) continue;
    const head = table.querySelectorAll('th')[value];
    if (wide && head.getBoundingClientRect().right > visibleRight(head) + 1)
      problems.push(`value column ends at ${Math.round(head.getBoundingClientRect().right)} px, ` +
                    `off-screen past ${Math.round(visibleRight(head))} px`);
    for (const code of table.querySelectorAll(`td:nth-child(${bytes + 1}) code`))
      if (code.getClientRects().length > 1)
        problems.push(`bytes wrap over ${code.getClientRects().length} lines: ${code.textContent}`);
  }
  return problems;
}
