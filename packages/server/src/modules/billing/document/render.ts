import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { InvoiceDocument } from './model.js';

/**
 * Draws an invoice document as a PDF (ADR 0036): A4, text drawn with DejaVu Sans embedded from the
 * `dejavu-fonts-ttf` package (subset), so the output never depends on the machine's fonts. The bytes
 * are a pure function of the document: no current time (the info dates are the document's date), no
 * random name (pdf-lib's suffixes come from a fixed seed, the fonts have fixed names), a trailer /ID
 * hashed from the content, objects in drawing order. Each item is one text run on one line.
 */

const require = createRequire(import.meta.url);
type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];
/**
 * pdf-lib, fontkit and the fonts, loaded at the first document, not with the server: the two
 * libraries are a third of a second of module loading every process would pay (each node at start,
 * each test file) for a route most never serve.
 */
let library: Promise<{ pdfLib: typeof import('pdf-lib'); fontkit: Fontkit; regular: Uint8Array; bold: Uint8Array }> | undefined;
const loadLibrary = () =>
  (library ??= Promise.all([
    import('pdf-lib'),
    import('@pdf-lib/fontkit'),
    readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  ]).then(([pdfLib, fontkit, regular, bold]) => ({ pdfLib, fontkit: ((fontkit as { default?: Fontkit }).default ?? fontkit) as Fontkit, regular, bold })));

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const RIGHT = A4.width - MARGIN;
/** Right edges of the Quantity, Unit price and Amount columns; the description ends before DESCRIPTION_END. */
const COLUMN_RIGHT = [0, 360, 460, RIGHT] as const;
const DESCRIPTION_END = 290;
const BODY = 10;
const ROW = 9;
const MIN_ROW = 5;

type Fonts = { regular: PDFFont; bold: PDFFont };

/** A cursor over pages: each text run goes on its own baseline; a new page starts when the space runs out. */
class Writer {
  private page: PDFPage;
  private y: number;
  constructor(
    private readonly doc: PDFDocument,
    readonly fonts: Fonts,
  ) {
    this.page = this.newPage();
    this.y = A4.height - MARGIN;
  }

  private newPage() {
    this.page = this.doc.addPage([A4.width, A4.height]);
    this.y = A4.height - MARGIN;
    return this.page;
  }

  /** Moves down one line of `size`, onto a new page when it would pass the bottom margin. */
  line(size: number, gap = 0.5) {
    this.y -= size * (1 + gap);
    if (this.y < MARGIN) {
      this.newPage();
      this.y -= size;
    }
  }

  space(points: number) {
    this.y -= points;
  }

  text(text: string, size: number, x = MARGIN, font = this.fonts.regular) {
    if (text !== '') this.page.drawText(text, { x, y: this.y, size, font });
  }

  right(text: string, size: number, rightEdge: number, font = this.fonts.regular) {
    this.text(text, size, rightEdge - font.widthOfTextAtSize(text, size), font);
  }
}

/** The description's size: the row size, smaller when needed to end before the Quantity column. */
function fittedSize(font: PDFFont, text: string): number {
  const width = font.widthOfTextAtSize(text, ROW);
  const room = DESCRIPTION_END - MARGIN;
  return width <= room ? ROW : Math.max(MIN_ROW, Math.floor((ROW * room * 10) / width) / 10);
}

export async function renderInvoicePdf(document: InvoiceDocument, invoiceId: string): Promise<Uint8Array> {
  const { pdfLib, fontkit, regular, bold } = await loadLibrary();
  const { PDFDocument, PDFHexString } = pdfLib;
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.registerFontkit(fontkit);
  const fonts = {
    regular: await pdf.embedFont(regular, { subset: true, customName: 'TallyDejaVuSans' }),
    bold: await pdf.embedFont(bold, { subset: true, customName: 'TallyDejaVuSans-Bold' }),
  };
  pdf.setTitle(document.infoTitle);
  pdf.setProducer('Tally');
  pdf.setCreator('Tally');
  pdf.setCreationDate(document.date);
  pdf.setModificationDate(document.date);

  const w = new Writer(pdf, fonts);
  w.line(20, 0);
  w.text(document.title, 20, MARGIN, fonts.bold);
  w.space(10);
  for (const l of document.header) {
    w.line(BODY);
    w.text(l, BODY);
  }
  for (const [heading, lines] of [
    ['From', document.from],
    ['Bill to', document.billTo],
  ] as const) {
    w.space(12);
    w.line(11);
    w.text(heading, 11, MARGIN, fonts.bold);
    for (const l of lines) {
      w.line(BODY);
      w.text(l, BODY);
    }
  }
  w.space(16);
  w.line(ROW);
  const [description, ...numeric] = document.columns;
  w.text(description, ROW, MARGIN, fonts.bold);
  numeric.forEach((c, i) => w.right(c, ROW, COLUMN_RIGHT[i + 1]!, fonts.bold));
  for (const [text, ...cells] of document.rows) {
    w.line(ROW, 0.6);
    w.text(text, fittedSize(fonts.regular, text));
    cells.forEach((c, i) => w.right(c, ROW, COLUMN_RIGHT[i + 1]!));
  }
  w.space(12);
  for (const t of document.totals) {
    w.line(BODY);
    w.right(t, BODY, RIGHT, fonts.bold);
  }

  // The trailer /ID: the same invoice content gives the same id (§4.5), a different one another.
  const digest = createHash('sha256').update(invoiceId).update('\n').update(JSON.stringify(document)).digest('hex').slice(0, 32);
  pdf.context.trailerInfo.ID = pdf.context.obj([PDFHexString.of(digest), PDFHexString.of(digest)]);
  return pdf.save({ useObjectStreams: false });
}
