import CJPEG
import CPNG
public import Foundation
public import ParleyCore

/// Decoded pixels, 8-bit RGBA, row by row.
public struct PixelImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// Largest image decoded for a preview: about a 48-megapixel photo.
    static let maxPixels: UInt = 48_000_000

    /// Decodes a PNG or JPEG (libpng, libjpeg). A large JPEG is scaled down while it is
    /// decoded, since a preview needs only a few dozen pixels a side.
    public static func decode(_ data: Data, type: String, wantedSide: Int = 64) throws(ParleyError) -> PixelImage {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let channels: Int
        let ok: Int32
        switch type {
        case "image/png":
            channels = 4
            ok = data.withUnsafeBytes { bytes in
                parley_png_decode(bytes.baseAddress, bytes.count, UInt(maxPixels), &pixels, &width, &height, &message, message.count)
            }
        case "image/jpeg":
            channels = 3
            ok = data.withUnsafeBytes { bytes in
                parley_jpeg_decode(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), UInt32(wantedSide), &pixels, &width,
                    &height, &message, message.count)
            }
        default:
            throw ParleyError(.unsupportedMedia, "no preview for \(type)")
        }
        guard ok == 1, let pixels else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ParleyError(.truncatedMedia, "cannot decode the image: \(reason)")
        }
        defer { free(pixels) }
        let count = Int(width) * Int(height)
        var rgba = [UInt8](repeating: 255, count: count * 4)
        if channels == 4 {
            rgba.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: pixels, count: count * 4)) }
        } else {
            for index in 0..<count {
                rgba[index * 4] = pixels[index * 3]
                rgba[index * 4 + 1] = pixels[index * 3 + 1]
                rgba[index * 4 + 2] = pixels[index * 3 + 2]
            }
        }
        return PixelImage(width: Int(width), height: Int(height), rgba: rgba)
    }
}
