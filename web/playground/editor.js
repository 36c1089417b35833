// The code editor: CodeMirror 6 assembled from its own pieces (the commands, history and search
// keymaps, Python support), plus the two things the playground adds: Ctrl/Cmd+Enter runs the
// code, and the line of the last error is highlighted until the next edit.
// Chosen piece by piece rather than basicSetup: autocompletion, folding and bracket closing
// would add weight (and surprises while typing) for little gain in short example scripts.
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentWithTab,
  isolateHistory,
} from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { searchKeymap } from "@codemirror/search";
import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";

// ---- error line -----------------------------------------------------------------------------
const setErrorLine = StateEffect.define();
const errorLineField = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    for (const e of tr.effects) {
      if (e.is(setErrorLine)) {
        if (e.value == null) return Decoration.none;
        const line = tr.state.doc.line(e.value);
        return Decoration.set([Decoration.line({ class: "cm-error-line" }).range(line.from)]);
      }
    }
    // Any edit may have fixed the error (or moved it): the mark is for the code that ran.
    return tr.docChanged ? Decoration.none : deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Creates the editor in `parent`; `onRun()` is called by Ctrl/Cmd+Enter, `onChange(code)` on edits. */
export function createEditor(parent, { code, onRun, onChange }) {
  const runKey = { key: "Mod-Enter", run: () => (onRun(), true), preventDefault: true };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: code,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        highlightSpecialChars(),
        drawSelection(),
        history(),
        EditorView.lineWrapping, // the editor pane is narrow; never scroll sideways
        indentUnit.of("    "), // PEP 8; CodeMirror's default is two spaces
        EditorState.tabSize.of(4),
        indentOnInput(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        python(),
        errorLineField,
        // defaultKeymap binds Mod-Enter to "insert blank line"; running must win.
        Prec.highest(keymap.of([runKey])),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getCode: () => view.state.doc.toString(),
    /** Replaces the code as one undo step of its own (Ctrl/Cmd+Z brings the old code back). */
    setCode(text) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: isolateHistory.of("full"),
      });
    },
    /** Highlights 1-based `line` (null clears) and scrolls it into view. */
    markError(line) {
      const valid = Number.isInteger(line) && line >= 1 && line <= view.state.doc.lines;
      const effects = [setErrorLine.of(valid ? line : null)];
      if (valid) effects.push(EditorView.scrollIntoView(view.state.doc.line(line).from, { y: "center" }));
      view.dispatch({ effects });
    },
    focus: () => view.focus(),
  };
}
