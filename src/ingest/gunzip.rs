//! Reading a `*.gz` file: every gzip member in turn (RFC 1952; `gzip -d` reads concatenated
//! members the same way), each inflated by flate2's raw `Decompress` (its zlib-rs backend)
//! and checked against the member's CRC-32 (`crc32fast`) and length. flate2's own
//! `MultiGzDecoder` with that backend computes the CRC with zlib-rs's slower code; with
//! miniz_oxide it inflates about a quarter slower (BENCHMARKS.md, "Stop 40"). What it
//! refuses, this refuses: a bad magic, method or reserved flag, a header CRC that does not
//! match, a name or comment over 64 KiB, a truncated member, a CRC or length that does not
//! match, bytes after a member that do not start another. An `Interrupted` error of the
//! inner reader can be retried; after any other error every read fails. Uses only std,
//! flate2 and crc32fast.

use flate2::{Decompress, FlushDecompress, Status};
use std::io::{self, BufRead, Read};

const FHCRC: u8 = 1 << 1;
const FEXTRA: u8 = 1 << 2;
const FNAME: u8 = 1 << 3;
const FCOMMENT: u8 = 1 << 4;
const FRESERVED: u8 = 0xe0;
/// The longest name or comment a header may hold, with its NUL (flate2's limit).
const MAX_FIELD: u64 = 1 << 16;

/// The decompressed contents of the gzip stream `inner`.
pub struct Gunzip<R> {
    inner: R,
    inflate: Decompress,
    crc: crc32fast::Hasher,
    state: State,
    /// Whether a member was read whole (bytes too few for a header after one are stray).
    after_member: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Before a member's header (the first, or after a member when more bytes follow).
    Header,
    Body,
    /// After a member's trailer: another member follows, or the end.
    Between,
    Done,
    /// An error other than `Interrupted` was returned: the stream is not read further.
    Failed(String),
}

impl<R: BufRead> Gunzip<R> {
    pub fn new(inner: R) -> Self {
        Gunzip {
            inner,
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            state: State::Header,
            after_member: false,
        }
    }

    /// Reads and checks a member's header, leaving `inner` at its deflate data.
    fn header(&mut self) -> io::Result<()> {
        let mut fixed = [0u8; 10];
        self.inner.read_exact(&mut fixed).map_err(|e| match self.after_member {
            false => truncated(e, "header"),
            true if e.kind() == io::ErrorKind::UnexpectedEof => invalid("unexpected bytes after a gzip member"),
            true => e,
        })?;
        if fixed[..3] != [0x1f, 0x8b, 8] || fixed[3] & FRESERVED != 0 {
            return Err(invalid("not a gzip member (bad magic number, method or flags)"));
        }
        let flags = fixed[3];
        let mut crc = crc32fast::Hasher::new();
        crc.update(&fixed);
        if flags & FEXTRA != 0 {
            let mut length = [0u8; 2];
            self.inner.read_exact(&mut length).map_err(|e| truncated(e, "header"))?;
            crc.update(&length);
            let mut extra = vec![0u8; usize::from(u16::from_le_bytes(length))];
            self.inner.read_exact(&mut extra).map_err(|e| truncated(e, "header"))?;
            crc.update(&extra);
        }
        for flag in [FNAME, FCOMMENT] {
            if flags & flag != 0 {
                let mut text = Vec::new();
                (&mut self.inner).take(MAX_FIELD).read_until(0, &mut text)?;
                if text.last() != Some(&0) {
                    return Err(match text.len() as u64 {
                        MAX_FIELD => invalid("gzip header field too long"),
                        _ => truncated(io::ErrorKind::UnexpectedEof.into(), "header"),
                    });
                }
                crc.update(&text);
            }
        }
        if flags & FHCRC != 0 {
            let mut stored = [0u8; 2];
            self.inner.read_exact(&mut stored).map_err(|e| truncated(e, "header"))?;
            if u16::from_le_bytes(stored) != crc.finalize() as u16 {
                return Err(invalid("gzip header CRC does not match"));
            }
        }
        Ok(())
    }

    /// Inflates into `out` from the member's deflate data; at the member's end checks its
    /// trailer and returns what the last step made (maybe 0, with `state` moved on).
    fn body(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            let input = self.inner.fill_buf()?;
            let (before_in, before_out) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(input, out, FlushDecompress::None)
                .map_err(|e| invalid(&format!("corrupt deflate data: {e}")))?;
            let used = (self.inflate.total_in() - before_in) as usize;
            let made = (self.inflate.total_out() - before_out) as usize;
            let at_end = input.is_empty();
            self.inner.consume(used);
            self.crc.update(&out[..made]);
            if status == Status::StreamEnd {
                self.trailer()?;
                return Ok(made);
            }
            if made > 0 {
                return Ok(made);
            }
            if at_end {
                return Err(truncated(io::ErrorKind::UnexpectedEof.into(), "deflate data"));
            }
            if used == 0 {
                return Err(invalid("corrupt deflate data: no progress"));
            }
        }
    }

    /// Checks the member's CRC-32 and length.
    fn trailer(&mut self) -> io::Result<()> {
        let mut trailer = [0u8; 8];
        self.inner.read_exact(&mut trailer).map_err(|e| truncated(e, "trailer"))?;
        let [c0, c1, c2, c3, l0, l1, l2, l3] = trailer;
        if u32::from_le_bytes([c0, c1, c2, c3]) != std::mem::take(&mut self.crc).finalize() {
            return Err(invalid("gzip CRC-32 does not match the data"));
        }
        if u32::from_le_bytes([l0, l1, l2, l3]) != self.inflate.total_out() as u32 {
            return Err(invalid("gzip length does not match the data"));
        }
        self.inflate.reset(false);
        self.after_member = true;
        self.state = State::Between;
        Ok(())
    }

    /// One read: on through headers and member ends until bytes are made or the stream ends.
    fn step(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            match &self.state {
                State::Header => {
                    self.header()?;
                    self.state = State::Body;
                }
                State::Body => {
                    let made = self.body(out)?;
                    if made > 0 {
                        return Ok(made);
                    }
                }
                State::Between => {
                    self.state = if self.inner.fill_buf()?.is_empty() { State::Done } else { State::Header };
                }
                State::Done => return Ok(0),
                State::Failed(what) => return Err(invalid(&format!("gzip stream already failed: {what}"))),
            }
        }
    }
}

impl<R: BufRead> Read for Gunzip<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let read = self.step(out);
        if let Err(error) = &read {
            if error.kind() != io::ErrorKind::Interrupted {
                self.state = State::Failed(error.to_string());
            }
        }
        read
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

fn truncated(error: io::Error, part: &str) -> io::Error {
    match error.kind() {
        io::ErrorKind::UnexpectedEof => {
            io::Error::new(io::ErrorKind::UnexpectedEof, format!("gzip {part} cut short (truncated file)"))
        }
        _ => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::{Compression, GzBuilder};
    use std::io::{BufReader, Write};

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// Everything `Gunzip` reads from `bytes` through a reader of `chunk`-byte fills, into
    /// reads of `read`-byte buffers.
    fn gunzip(bytes: &[u8], chunk: usize, read: usize) -> io::Result<Vec<u8>> {
        let mut reader = Gunzip::new(BufReader::with_capacity(chunk, bytes));
        let mut out = Vec::new();
        let mut buffer = vec![0u8; read];
        loop {
            match reader.read(&mut buffer)? {
                0 => return Ok(out),
                n => out.extend_from_slice(&buffer[..n]),
            }
        }
    }

    /// What flate2's `MultiGzDecoder` reads from `bytes` (the oracle).
    fn oracle(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out).map(|_| out)
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n).map(|i| b"NCCL INFO AllReduce: opCount 12 count 4096\n"[i % 43]).collect()
    }

    #[test]
    fn members_read_back_whole_at_any_buffer_size() {
        let (a, b) = (text(300_000), text(1_000));
        let mut two = gzip(&a);
        two.extend(gzip(&b));
        for (chunk, read) in [(1, 1), (7, 3), (64, 1 << 16), (1 << 15, 5), (1 << 16, 1 << 16)] {
            assert_eq!(gunzip(&gzip(&a), chunk, read).unwrap(), a, "{chunk} {read}");
            assert_eq!(gunzip(&two, chunk, read).unwrap(), [a.clone(), b.clone()].concat(), "{chunk} {read}");
            assert_eq!(gunzip(&gzip(b""), chunk, read).unwrap(), b"", "{chunk} {read}");
        }
    }

    #[test]
    fn header_fields_are_skipped_and_the_header_crc_checked() {
        let data = text(5_000);
        let mut encoder = GzBuilder::new()
            .filename("rank0.log")
            .comment("a comment")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), Compression::default());
        encoder.write_all(&data).unwrap();
        let mut bytes = encoder.finish().unwrap();
        // FHCRC, set by hand: the CRC-16 of the header (RFC 1952), after the comment's NUL.
        let header_end = 10 + 2 + 3 + b"rank0.log\0".len() + b"a comment\0".len();
        bytes[3] |= FHCRC;
        let crc16 = crc32fast::hash(&bytes[..header_end]) as u16;
        bytes.splice(header_end..header_end, crc16.to_le_bytes());
        assert_eq!(gunzip(&bytes, 4, 100).unwrap(), data);
        assert_eq!(oracle(&bytes).unwrap(), data);
        bytes[header_end] ^= 1;
        assert!(gunzip(&bytes, 4, 100).unwrap_err().to_string().contains("header CRC"));
        assert!(oracle(&bytes).is_err());
    }

    #[test]
    fn damaged_streams_are_errors_as_flate2_makes_them() {
        let data = text(50_000);
        let good = gzip(&data);
        let length = good.len();
        let mut bad_crc = good.clone();
        bad_crc[length - 8] ^= 1;
        let mut bad_length = good.clone();
        bad_length[length - 1] ^= 1;
        let mut bad_magic = good.clone();
        bad_magic[0] = 0;
        let mut reserved = good.clone();
        reserved[3] = 0x20;
        let mut garbage = good.clone();
        garbage.extend_from_slice(b"trailing text");
        let mut corrupt = good.clone();
        corrupt[12..40].fill(0xff);
        let cases: [(&str, &[u8], &str); 9] = [
            ("crc", &bad_crc, "CRC-32"),
            ("length", &bad_length, "length"),
            ("magic", &bad_magic, "not a gzip member"),
            ("reserved", &reserved, "not a gzip member"),
            ("garbage", &garbage, "not a gzip member"),
            ("a stray newline", &[good.clone(), b"\n".to_vec()].concat(), "unexpected bytes after a gzip member"),
            ("cut", &good[..length / 2], "cut short"),
            ("cut trailer", &good[..length - 3], "trailer cut short"),
            ("empty", b"", "header cut short"),
        ];
        for (name, bytes, says) in cases {
            let error = gunzip(bytes, 1 << 10, 1 << 12).unwrap_err();
            assert!(error.to_string().contains(says), "{name}: {error}");
            assert!(oracle(bytes).is_err(), "{name}: flate2 reads it");
        }
        assert!(gunzip(&corrupt, 1 << 10, 1 << 12).is_err() && oracle(&corrupt).is_err());
    }

    /// A reader whose every third `fill_buf` is interrupted (as a read of a FUSE or NFS
    /// file may be): nothing is lost or misread when the read is retried.
    struct Interrupting<R> {
        inner: R,
        calls: u32,
    }

    impl<R: Read> Read for Interrupting<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.inner.read(buf)
        }
    }

    impl<R: BufRead> BufRead for Interrupting<R> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            self.calls += 1;
            if self.calls % 3 == 0 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            self.inner.fill_buf()
        }
        fn consume(&mut self, amount: usize) {
            self.inner.consume(amount)
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_without_loss() {
        let (a, b) = (text(200_000), text(10));
        let three = [gzip(&a), gzip(&b), gzip(&a)].concat();
        for chunk in [1, 5, 100, 1 << 15] {
            let inner = Interrupting { inner: BufReader::with_capacity(chunk, &three[..]), calls: 0 };
            let mut out = Vec::new();
            Gunzip::new(inner).read_to_end(&mut out).unwrap();
            assert!(out == [a.clone(), b.clone(), a.clone()].concat(), "{chunk}");
        }
    }

    #[test]
    fn a_header_field_over_64_kib_is_refused_and_errors_stick() {
        let mut long = gzip(b"data");
        long[3] |= FNAME;
        long.splice(10..10, vec![b'n'; 1 << 16]);
        let error = gunzip(&long, 1 << 12, 100).unwrap_err();
        assert!(error.to_string().contains("field too long"), "{error}");
        assert!(oracle(&long).is_err());
        let mut fits = gzip(b"data");
        fits[3] |= FNAME;
        fits.splice(10..10, [vec![b'n'; (1 << 16) - 1], vec![0]].concat());
        assert_eq!(gunzip(&fits, 1 << 12, 100).unwrap(), b"data");
        assert_eq!(oracle(&fits).unwrap(), b"data");

        let mut bad = gzip(&text(1_000));
        let at = bad.len() - 8;
        bad[at] ^= 1;
        let mut reader = Gunzip::new(BufReader::new(&bad[..]));
        let mut out = Vec::new();
        assert!(reader.read_to_end(&mut out).is_err());
        let again = reader.read(&mut [0u8; 10]).unwrap_err();
        assert!(again.to_string().contains("already failed"), "{again}");
    }

    proptest::proptest! {
        /// Any bytes, gzip or not, damaged or not: read back exactly as flate2 reads them, or
        /// refused where flate2 refuses them.
        #[test]
        fn reads_what_flate2_reads(
            data in proptest::collection::vec(0u8..4, 0..3000),
            members in 1usize..4,
            flip in proptest::option::of((0usize..4000, 0u8..8)),
            cut in proptest::option::of(0usize..4000),
            chunk in 1usize..300,
        ) {
            let mut bytes: Vec<u8> = (0..members).flat_map(|_| gzip(&data)).collect();
            if let Some((at, bit)) = flip {
                let at = at % bytes.len();
                bytes[at] ^= 1 << bit;
            }
            if let Some(cut) = cut {
                bytes.truncate(cut.min(bytes.len()));
            }
            let ours = gunzip(&bytes, chunk, chunk * 2 + 1);
            let theirs = oracle(&bytes);
            proptest::prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?} {:?}", ours.as_ref().err(), theirs.as_ref().err());
            if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                proptest::prop_assert_eq!(ours, theirs);
            }
        }
    }
}
