# dump sender-side data packets/acks from a pcap: time, dir, seq, len, ack, sack blocks
import subprocess,sys
def load(path, srvport=None):
    out=subprocess.run(['tshark','-r',path,'-T','fields','-E','separator=|','-e','frame.time_relative','-e','tcp.srcport','-e','tcp.dstport','-e','tcp.seq','-e','tcp.ack','-e','tcp.len','-e','tcp.options.sack_le','-e','tcp.options.sack_re','-e','tcp.flags.syn','-o','tcp.relative_sequence_numbers:TRUE','-o','tcp.analyze_sequence_numbers:TRUE'],capture_output=True,text=True).stdout
    rows=[]
    for l in out.splitlines():
        t,sp,dp,seq,ack,ln,sle,sre,syn=l.split('|')
        if syn in('1','True'): continue
        sp=int(sp); dp=int(dp)
        rows.append(dict(t=float(t),sp=sp,dp=dp,seq=int(seq),ack=int(ack),len=int(ln),
          sack=list(zip(map(int,sle.split(',')),map(int,sre.split(',')))) if sle else []))
    return rows
