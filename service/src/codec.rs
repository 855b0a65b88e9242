//! The protobuf codec of `cardhouse.v1` (set with `codec_path` in `build.rs`): tonic-prost's
//! codec, except that a message that does not decode is `INVALID_ARGUMENT` (tonic-prost says
//! `INTERNAL`). On the server the decoded messages are requests, and a request that does not
//! decode is the caller's mistake; tonic passes a decoder's status through as it is.
//!
//! The generated clients use this codec too: to them an undecodable response (a server
//! built from other protos) is also `INVALID_ARGUMENT`, with a message that says so.

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::ProstEncoder;

/// [`tonic_prost::ProstCodec`] with decode errors as `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct ApiCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for ApiCodec<T, U> {
    fn default() -> Self {
        ApiCodec(PhantomData)
    }
}

impl<T, U> Codec for ApiCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ApiDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        ApiDecoder(PhantomData)
    }
}

/// Decodes `U`; a message that does not decode is `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct ApiDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for ApiDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| {
            Status::invalid_argument(format!("failed to decode the message as protobuf: {e}"))
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;
    use tonic::Code;
    use tonic::codec::{Codec, Streaming};

    use super::ApiCodec;

    #[tokio::test]
    async fn an_undecodable_request_is_invalid_argument() {
        let mut codec =
            ApiCodec::<crate::pb::GetViewResponse, crate::pb::GetViewRequest>::default();
        // One uncompressed gRPC message of 2 bytes: field 1 (`match_id`, a string) sent as a
        // varint, the wrong wire type.
        let body = String::from("\0\0\0\0\u{2}\u{8}\u{7}");
        let mut stream = Streaming::new_request(codec.decoder(), body, None, None);
        let err = stream.next().await.unwrap().unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(err.message().starts_with("failed to decode"), "{err:?}");
    }
}
