// Takes the screenshots listed in docs/screenshots/take.sh (run by it; needs playwright-core
// and Debian's chromium). Arguments: SITE_DIR OUT_DIR RUN_ID COMPARED_RUN_ID (a run whose
// comparison with its baseline is shown, every case unfolded).
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [site, out, runId, comparedRun] = process.argv.slice(2);
const pages = [
  ['index', 'index.html', null],
  ['compare', `runs/${comparedRun}/index.html`, '#baseline'],
  ['run-page', `runs/${runId}/index.html`, '#async'],
  ['run-evidence', `runs/${runId}/index.html`, '#files'],
  ['decode-section', 'sections/decode.html', '#runs'],
];
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
for (const width of [1280, 390]) {
  for (const colorScheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width, height: 1600 }, colorScheme });
    const page = await context.newPage();
    for (const [name, path, anchor] of pages) {
      await page.goto(`file://${site}/${path}`, { waitUntil: 'load' });
      // The widest table against the content box: nothing may scroll sideways at 1280.
      const widest = await page.$$eval('main table', (ts) => ts.map((t) => [t.caption ? t.caption.textContent.slice(0, 40) : '', t.scrollWidth, t.closest('main').clientWidth - 32]));
      if (width === 1280 && colorScheme === 'light') for (const [caption, w, box] of widest) if (w > box) console.log(`${name}: table "${caption}" is ${w} px wide in a ${box} px box`);
      await page.evaluate(() => document.querySelectorAll('details.folded').forEach((d) => { d.open = true; }));
      if (anchor) await page.evaluate((a) => document.querySelector(a).scrollIntoView(), anchor);
      await page.screenshot({ path: `${out}/${name}-${width}-${colorScheme}.png` });
      if (colorScheme === 'light') {
        // The chart text as rendered: the SVG's smallest font size times the shown/drawn width.
        const charts = await page.$$eval('figure object', (objects) => objects.map((o) => [o.data, o.clientWidth]));
        for (const [src, shown] of charts.slice(0, 1)) {
          const svg = readFileSync(new URL(src), 'utf8');
          const sizes = [...svg.matchAll(/font-size="([0-9.]+)"/g)].map((m) => Number(m[1]));
          const drawn = Number(/<svg width="([0-9]+)"/.exec(svg)?.[1]);
          const smallest = (Math.min(...sizes) * shown) / drawn;
          console.log(`${name} at ${width} px: ${src.split('/').pop()} shown ${shown} px wide, smallest text ${smallest.toFixed(1)} px`);
        }
      }
    }
    await context.close();
  }
}
const context = await browser.newContext({ colorScheme: 'light' });
const page = await context.newPage();
await page.goto(`file://${site}/runs/${runId}/index.html`, { waitUntil: 'load' });
await page.emulateMedia({ media: 'print' });
await page.pdf({ path: `${out}/run-page.pdf`, format: 'A4', margin: { top: '12mm', bottom: '12mm', left: '12mm', right: '12mm' } });
await browser.close();
