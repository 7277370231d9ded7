#!/bin/sh
# The interface's message catalogues, GNU gettext's way: every string the program shows passes
# through tr(lang, "English") (or translatable("English") where it is only listed), xgettext finds
# them, and po/LANG.po gives each its translation.
#   po/catalogues.sh update   extracts the messages from the sources and merges them into every
#                             po/LANG.po (new ones arrive untranslated, changed ones marked fuzzy;
#                             a language new in po/LINGUAS gets its po/LANG.po made)
#   po/catalogues.sh check    fails, naming them, when a message has no translation in a catalogue
#                             of po/LINGUAS (untranslated or fuzzy), or a translation's {} do not
#                             match its message's; the catalogues test runs it
# Needs xgettext, msgmerge, msgcmp and msgfmt (Debian's gettext).
set -eu
cd "$(dirname "$0")/.."
mode=${1:-check}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find src include -name '*.cpp' -o -name '*.hpp' | LC_ALL=C sort > "$tmp/files"
xgettext --language=C++ --from-code=UTF-8 --keyword= --keyword=tr:2 --keyword=translatable:1 \
  --flag=tr:2:python-brace-format --flag=translatable:1:python-brace-format \
  --add-comments=TRANSLATORS: --add-location=file --sort-output \
  --package-name=qkv --msgid-bugs-address='the issues of qkv' --files-from="$tmp/files" -o "$tmp/qkv.pot"
status=0
for lang in $(cat po/LINGUAS); do
  case "$mode" in
    update)
      if [ -f "po/$lang.po" ]; then msgmerge --quiet --update --backup=none --add-location=file --sort-output "po/$lang.po" "$tmp/qkv.pot"
      else msginit --no-translator --locale="$lang" --input="$tmp/qkv.pot" --output-file="po/$lang.po"; fi ;;
    check)
      msgfmt --check --output-file=/dev/null "po/$lang.po" || status=1
      # a translation keeps its message's {} (fmt's placeholders: a missing one loses a number,
      # an extra one throws); xgettext has no C++ brace-format flag, so msgexec compares them
      msgexec --input="po/$lang.po" sh -c '
        t=$(cat); [ -n "$MSGEXEC_MSGID" ] && [ -n "$t" ] || exit 0
        want=$(printf %s "$MSGEXEC_MSGID" | grep -o "{[^}]*}" | sort | tr -d "\n")
        got=$(printf %s "$t" | grep -o "{[^}]*}" | sort | tr -d "\n")
        [ "$want" = "$got" ] || { echo "po/'"$lang"'.po: \"$MSGEXEC_MSGID\" is translated with {} of its own: \"$t\""; exit 1; }
      ' >&2 || status=1
      msgcmp "po/$lang.po" "$tmp/qkv.pot" || { echo "po/$lang.po: the messages above have no translation (po/catalogues.sh update, then translate them)"; status=1; } ;;
    *) echo "usage: po/catalogues.sh update|check" >&2; exit 2 ;;
  esac
done
exit $status
