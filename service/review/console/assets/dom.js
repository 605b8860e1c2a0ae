// The page's nodes. Everything a submission holds is attacker-written: it is only ever put in the page through
// textContent / createElement (el below), never as HTML, and the CSP allows no inline script at all.

export const $ = (id) => document.getElementById(id);

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'className') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

// A verdict or label, as a coloured word.
export function badge(status) {
  return el('span', { className: `badge ${status === 'spam' ? 'spam' : 'legitimate'}`, text: status });
}

let toastTimer;
export function toast(message) {
  const t = $('toast');
  t.textContent = message;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 2500);
}
