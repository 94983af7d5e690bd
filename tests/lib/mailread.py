"""The mails a test's players received, read as a client shows them: the
.eml files of a Maildir-transport outbox folder, the Subject decoded, the
text parts decoded and format=flowed undone (RFC 3676).

  mailread.py to OUTBOX ADDRESS SUBJECT [--exact] [--any-year]
      the last mail to ADDRESS whose Subject ends in " · SUBJECT" (or is
      SUBJECT, with --exact), or that holds it merged (sent to the same
      person at the same moment: a rule, then SUBJECT as a line, with a
      year " (1451)" after it when --any-year): "Subject: ..." then its
      text parts; "(no such mail)" when there is none
  mailread.py subjects OUTBOX ADDRESS
      the Subject of every mail to ADDRESS, one a line
"""
import email
import email.header
import glob
import os
import re
import sys

RULE = "-" * 72


def subject_of(m):
    return str(email.header.make_header(email.header.decode_header(m["Subject"] or "")))


def texts(m):
    """The text/plain parts of m, each as a client shows it."""
    for p in m.walk():
        if p.get_content_type() != "text/plain":
            continue
        text = p.get_payload(decode=True).decode()
        if (p.get_param("format") or "").lower() == "flowed":
            # a line ending in a space runs on into the next; the stuffed
            # space removed
            out = []
            for line in text.replace("\r\n", "\n").split("\n"):
                if line.startswith(" "):
                    line = line[1:]
                if out and out[-1].endswith(" ") and out[-1] != "-- ":
                    out[-1] += line
                else:
                    out.append(line)
            text = "\n".join(out)
        yield p, text


def mails(outbox):
    """Every mail of the outbox, in the order it was written."""
    for f in sorted(glob.glob(os.path.join(outbox, "*.eml")),
                    key=lambda f: (os.path.getmtime(f), f)):
        with open(f, "rb") as fp:
            yield email.message_from_binary_file(fp)


def merged_into(m, subject, any_year):
    """Whether m holds the mail `subject` merged under a rule."""
    heading = re.compile(("^" if any_year else "") + RULE + "\n" + re.escape(subject) +
                         ("( \\([0-9]+\\))?$" if any_year else "\n"), re.M)
    return any(p.get_content_type() == "text/plain" and
               heading.search(p.get_payload(decode=True).decode().replace("\r\n", "\n"))
               for p in m.walk())


def mail_to(outbox, address, subject, exact, any_year):
    found = None
    for m in mails(outbox):
        s = subject_of(m)
        if address in (m["To"] or "") and (
                (exact and s == subject) or s.endswith(" \u00b7 " + subject) or
                merged_into(m, subject, any_year)):
            found = "Subject: " + s + "\n" + "".join(t for _, t in texts(m))
    return found or "(no such mail)"


def main(argv):
    if len(argv) >= 4 and argv[1] == "to":
        print(mail_to(argv[2], argv[3], argv[4], "--exact" in argv[5:], "--any-year" in argv[5:]))
    elif len(argv) == 4 and argv[1] == "subjects":
        for m in mails(argv[2]):
            if argv[3] in (m["To"] or ""):
                print(subject_of(m))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
