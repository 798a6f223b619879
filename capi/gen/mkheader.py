import re,sys
import headers
exports=set(open(sys.argv[1]).read().split())
types=[];protos={}
for st in headers.statements(sys.argv[2]):
    if st.startswith('typedef'):
        if '{' in st:
            head,body=st.split('{',1);body,tail=body.rsplit('}',1)
            items=[x.strip() for x in body.split(';' if 'struct' in head else ',') if x.strip()]
            sep=';\n' if 'struct' in head else ',\n'
            st=head.strip()+'\n{\n'+''.join('    '+x+('\n' if re.fullmatch(r'_Pragma\("[^"]*"\)',x) else sep) for x in items)+'}'+tail
            if 'struct' not in head: st=st.replace(',\n}','\n}')
        types.append(st)
    else:
        m=re.search(r'(\w+)\s*\(',st)
        if m and m.group(1) in exports: protos[m.group(1)]=st+';'
missing=sorted(exports-set(protos))
if missing: sys.stderr.write('no declaration for: %s\n'%' '.join(missing))
out=['/* Declarations of librealsense 2.56.5\'s public C interface (include/librealsense2/rs.h and h/rs_*.h)',
' * that librealsense2.so.2.56 built from this folder exports (stubs.c: those it refuses): names, signatures, struct',
' * layouts and enum values as in those headers. Generated; see README.md (capi). */',
'#ifndef RSBAG_CAPI_RS2_H','#define RSBAG_CAPI_RS2_H','#ifdef __cplusplus','extern "C" {','#endif','#include <stdint.h>','',
'#define RS2_API_MAJOR_VERSION 2','#define RS2_API_MINOR_VERSION 56','#define RS2_API_PATCH_VERSION 5','#define RS2_API_BUILD_VERSION 0',
'#define RS2_API_VERSION (((RS2_API_MAJOR_VERSION) * 10000) + ((RS2_API_MINOR_VERSION) * 100) + (RS2_API_PATCH_VERSION))',
'#define RS2_DEFAULT_TIMEOUT 15000','#define RS2_PRODUCT_LINE_ANY 0xff','#define RS2_PRODUCT_LINE_SW_ONLY 0x100','']
out+= [t+';\n' for t in types]
out+=['#ifndef RSBAG_CAPI_TYPES_ONLY']
out+=[protos[k]+'' for k in sorted(protos)]
out+=['#endif','#ifdef __cplusplus','}','#endif','#endif','']
sys.stdout.write('\n'.join(out))
