"""Statements of librealsense 2.56.5's public C headers, shared by
mkheader.py and mkstubs.py."""
import os, re

ORDER = ['rs_types', 'rs', 'rs_context', 'rs_device', 'rs_sensor', 'rs_frame', 'rs_option',
         'rs_processing', 'rs_record_playback', 'rs_pipeline', 'rs_config']


def statements(hdir):
    """Yields the top-level statements of the headers in hdir, in ORDER,
    without comments and preprocessor lines, whitespace collapsed."""
    for n in ORDER:
        s = open(os.path.join(hdir, '%s.h' % n)).read()
        s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
        s = re.sub(r'//[^\n]*', '', s)
        s = re.sub(r'#\s*pragma\s+([^\n]*?)\s*$', r'_Pragma("\1")', s, flags=re.M)
        s = re.sub(r'#[^\n]*', '', s)
        s = s.replace('extern "C" {', '')
        depth = 0
        cur = ''
        for ch in s:
            cur += ch
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            elif ch == ';' and depth == 0:
                st = ' '.join(cur.split()).rstrip(';').lstrip('} ').strip()
                cur = ''
                if st:
                    yield st
