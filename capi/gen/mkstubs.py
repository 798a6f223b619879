import re,sys
import headers
exports=set(open(sys.argv[1]).read().split())
protos=[]
for st in headers.statements(sys.argv[2]):
    if st.startswith('typedef'): continue
    m=re.match(r'^(.*?)\b(rs2_\w+)\s*\((.*)\)$',st)
    if m: protos.append((m.group(1).strip(),m.group(2),m.group(3).strip(),st))
seen=set();out=[]
for ret,name,params,st in protos:
    if name in exports or name in seen or 'rs2_streams_list ' in params: continue
    seen.add(name)
    plist=[p.strip() for p in params.split(',')] if params and params!='void' else []
    errname=None
    if plist:
        last=plist[-1]
        mm=re.match(r'^rs2_error\s*\*\s*\*\s*(\w+)$',last)
        if mm: errname=mm.group(1)
    # ensure every param has a name
    named=[]
    for i,p in enumerate(plist):
        if re.search(r'[\w\]]\s*$',p) and not re.match(r'^(const\s+)?[\w ]+\s*\*?$',p.replace(' *','*')) or True:
            named.append(p)
    body=''
    if errname: body+='\tif (%s) *%s = rsbag_unsupported("%s");\n'%(errname,errname,name)
    r=ret.replace('const','').strip()
    if r!='void':
        if '*' in r: body+='\treturn NULL;\n'
        else: body+='\treturn (%s)0;\n'%ret
    out.append('%s %s(%s) {\n%s}\n'%(ret,name,params,body))
sys.stdout.write('/* Generated: every other function of librealsense 2.56.5\'s public C interface, present so\n   that programs linked against librealsense load, and failing with an rs2_error that names\n   it (functions without one do nothing). See README.md (capi). */\n#include "shim.h"\n#include "_cgo_export.h"\n\n#pragma GCC diagnostic ignored "-Wunused-parameter"\n\n'+'\n'.join(out))
sys.stderr.write('%d stubs\n'%len(out))
