/**
 * Checks every figure on the page against its type (issue 29 item 7): money shows exactly its
 * currency's minor units, a price per unit at least those and at most 6 decimals, credits at most
 * the stored scale (6), and no number anywhere (the charts' hidden tables included) carries more
 * than 6 decimals or a double's artefact digits (…0000001, …9999999). A column headed as money
 * (Amount, Revenue, Price…) must show each value through the money components. Runs in the page.
 */
import type { Page } from 'playwright-core';

/** The stored scale of credits and prices (numeric(24, 6)). */
export const MAX_DECIMALS = 6;

/** Problems found on the page as it is now, one line each (empty: every figure is right). */
export async function figureProblems(page: Page): Promise<string[]> {
  const args = { maxDecimals: MAX_DECIMALS };
  // Passed as source text: the test's TypeScript loader would name the nested functions with a
  // helper the page does not have.
  return page.evaluate(`(${IN_PAGE})(${JSON.stringify(args)})`) as Promise<string[]>;
}

const IN_PAGE = String.raw`({ maxDecimals }) => {
  const problems = [];
  const where = (el) => {
    const box = el.closest('table, figure, article, dl, form');
    return (box?.getAttribute('aria-label') ?? box?.tagName.toLowerCase() ?? 'page') + ': "' + (el.textContent ?? '').trim() + '"';
  };
  // The decimals of the one number in a figure's text (en-US grouping).
  const decimalsOf = (text) => {
    const m = /\d[\d,]*(?:\.(\d+))?/.exec(text);
    return m ? (m[1] ?? '').length : null;
  };
  const minorUnits = (currency) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

  for (const el of document.querySelectorAll('[data-figure]')) {
    const text = el.textContent ?? '';
    const decimals = decimalsOf(text);
    const kind = el.getAttribute('data-figure');
    const currency = el.getAttribute('data-currency') ?? '';
    if (decimals === null) problems.push('no number in ' + kind + ' ' + where(el));
    else if (kind === 'money' && decimals !== minorUnits(currency)) problems.push('money in ' + currency + ' with ' + decimals + ' decimals, not ' + minorUnits(currency) + ': ' + where(el));
    else if (kind === 'unit-price' && (decimals < minorUnits(currency) || decimals > maxDecimals)) problems.push('price per unit in ' + currency + ' with ' + decimals + ' decimals: ' + where(el));
    else if (kind === 'credits' && decimals > maxDecimals) problems.push('credits with ' + decimals + ' decimals: ' + where(el));
    if ((kind === 'money' || kind === 'unit-price') && !/[^\d\s.,-]/.test(text)) problems.push('money without its currency: ' + where(el));
  }

  // Any number in the page's text, hidden tables included (text node by text node: adjacent
  // cells' texts run together in textContent).
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest('script, style')) continue;
    for (const m of (node.nodeValue ?? '').matchAll(/\d+\.(\d+)/g)) {
      const fraction = m[1];
      if (fraction.length > maxDecimals || /0{6,}[1-9]|9{6,}/.test(fraction)) problems.push('a number with float digits or more than ' + maxDecimals + ' decimals: ' + m[0]);
    }
  }

  // Money columns show money figures.
  for (const table of document.querySelectorAll('table')) {
    const headers = [...table.querySelectorAll('thead th')].map((th) => (th.textContent ?? '').trim());
    headers.forEach((header, column) => {
      if (!/^(amount|revenue|mrr|price|cost)\b/i.test(header)) return;
      for (const row of table.querySelectorAll('tbody tr')) {
        const cell = row.children[column];
        const text = (cell?.textContent ?? '').trim();
        if (!cell || text === '' || text === '—') continue;
        if (!cell.querySelector('[data-figure="money"], [data-figure="unit-price"]')) {
          problems.push('"' + header + '" shows "' + text + '", not money in a currency (' + (table.getAttribute('aria-label') ?? 'table') + ')');
        }
      }
    });
  }
  return problems;
}`;
