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
xgettext --language=C++ --from-code=UTF-8 --keyword= --keyword=tr:2 --keyword=translatable:1 --keyword=said:1 \
  --flag=tr:2:no-c-format --flag=translatable:1:no-c-format --flag=said:1:no-c-format \
  --add-comments=TRANSLATORS: --add-location=file --sort-output --no-wrap \
  --package-name=qkv --msgid-bugs-address='the issues of qkv' --files-from="$tmp/files" -o "$tmp/qkv.pot"
status=0
for lang in $(cat po/LINGUAS); do
  case "$mode" in
    update)
      if [ -f "po/$lang.po" ]; then msgmerge --quiet --update --backup=none --add-location=file --sort-output --no-wrap "po/$lang.po" "$tmp/qkv.pot" && msgattrib --no-obsolete --no-wrap --output-file="po/$lang.po" "po/$lang.po"
      else msginit --no-translator --no-wrap --locale="$lang" --input="$tmp/qkv.pot" --output-file="po/$lang.po"; fi ;;
    check)
      msgfmt --check --output-file=/dev/null "po/$lang.po" || status=1
      # a translation uses only its message's {} (fmt's placeholders: an unknown one throws); it may
      # leave one out that its language does not say (English's plural "s", {5} in "thread{5}").
      # xgettext has no C++ brace-format flag, so msgexec compares them, message by message
      msgexec --input="po/$lang.po" sh -c '
        t=$(cat); [ -n "$MSGEXEC_MSGID" ] && [ -n "$t" ] || exit 0
        for b in $(printf %s "$t" | grep -o "{[^}]*}" | sort -u); do
          printf %s "$MSGEXEC_MSGID" | grep -qF "$b" && continue
          [ "$b" = "{}" ] || { echo "po/'"$lang"'.po: \"$MSGEXEC_MSGID\" is translated with $b, which it does not have"; exit 1; }
        done
        m=$(printf %s "$MSGEXEC_MSGID" | grep -o "{}" | wc -l); n=$(printf %s "$t" | grep -o "{}" | wc -l)
        [ "$n" -le "$m" ] || { echo "po/'"$lang"'.po: \"$MSGEXEC_MSGID\" is translated with more {} than it has"; exit 1; }
      ' >&2 || status=1
      msgcmp "po/$lang.po" "$tmp/qkv.pot" || { echo "po/$lang.po: the messages above have no translation (po/catalogues.sh update, then translate them)"; status=1; } ;;
    *) echo "usage: po/catalogues.sh update|check" >&2; exit 2 ;;
  esac
done
exit $status
