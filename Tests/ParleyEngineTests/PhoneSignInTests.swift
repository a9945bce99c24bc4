import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct PhoneSignInTests {
    static func world(_ codes: CapturedCodes, on kind: StoreKind) async throws -> TestWorld {
        try await TestWorld(on: kind) { $0.codeSender = codes }
    }

    @Test(arguments: StoreKind.all) func aFirstSignInCreatesTheAccountAndAsksForANameAndTheNextGoesStraightIn(_ kind: StoreKind)
        async throws
    {
        let codes = CapturedCodes()
        let world = try await Self.world(codes, on: kind)
        let phone = world.engine.connect()
        let request = try await phone.requestCode(phone: "+1 (555) 123-4567")
        #expect(request.phone == "+15551234567")
        #expect(request.expiresAt == world.clock.now.addingTimeInterval(300))
        let code = try #require(codes.last(for: "+15551234567"))
        #expect(code.count == 6)
        let first = try await phone.signIn(phone: "+15551234567", code: code)
        #expect(first.needsProfile)
        // The profile step comes before anything else.
        await expectError(.profileRequired) { try await phone.createGroup(handle: "early", title: nil, isPublic: true) }
        await expectError(.profileRequired) { try await phone.chats() }
        let named = try await phone.updateProfile(displayName: "Pat Phone")
        #expect(named.displayName == "Pat Phone")
        _ = try await phone.createGroup(handle: "later", title: nil, isPublic: true)
        try await phone.signOut()

        world.clock.advance(by: .seconds(31))
        let again = world.engine.connect()
        _ = try await again.requestCode(phone: "+15551234567")
        let second = try await again.signIn(phone: "+15551234567", code: try #require(codes.last(for: "+15551234567")))
        #expect(!second.needsProfile)
        #expect(second.user.id == first.user.id && second.user.displayName == "Pat Phone")
        #expect(try await again.groups().map(\.handle) == ["later"])
        // The handle does not give the number away.
        #expect(!first.user.handle.contains("555"))
    }

    @Test(arguments: StoreKind.all) func wrongExpiredReusedAndExhaustedCodesAreRefusedWithTheirCodes(_ kind: StoreKind) async throws {
        let codes = CapturedCodes()
        let world = try await Self.world(codes, on: kind)
        let number = "+447700900123"
        let session = world.engine.connect()

        await expectError(.invalidCode) { try await session.signIn(phone: number, code: "123456") }  // never sent
        _ = try await session.requestCode(phone: number)
        let good = try #require(codes.last(for: number))
        let wrong = good == "000000" ? "000001" : "000000"
        await expectError(.invalidCode) { try await session.signIn(phone: number, code: "12ab56") }
        await expectError(.invalidCode) { try await session.signIn(phone: number, code: wrong) }
        _ = try await session.signIn(phone: number, code: good)
        try await session.signOut()
        await expectError(.invalidCode) { try await session.signIn(phone: number, code: good) }  // reuse

        world.clock.advance(by: .seconds(31))
        _ = try await session.requestCode(phone: number)
        let late = try #require(codes.last(for: number))
        world.clock.advance(by: .seconds(301))
        await expectError(.codeExpired) { try await session.signIn(phone: number, code: late) }

        _ = try await session.requestCode(phone: number)
        let guarded = try #require(codes.last(for: number))
        let miss = guarded == "999999" ? "999998" : "999999"
        for _ in 0..<5 { await expectError(.invalidCode) { try await session.signIn(phone: number, code: miss) } }
        // Five misses spend the code: even the right one is refused now.
        await expectError(.tooManyAttempts) { try await session.signIn(phone: number, code: guarded) }
    }

    @Test(arguments: StoreKind.all) func sendingIsRateLimitedPerNumberAndPerClientAddress(_ kind: StoreKind) async throws {
        let codes = CapturedCodes()
        let world = try await Self.world(codes, on: kind)
        let here = world.engine.connect(address: "203.0.113.7")
        _ = try await here.requestCode(phone: "+15550000001")
        await expectError(.rateLimited) { try await here.requestCode(phone: "+15550000001") }  // within 30 s
        for _ in 0..<4 {
            world.clock.advance(by: .seconds(31))
            _ = try await here.requestCode(phone: "+15550000001")
        }
        world.clock.advance(by: .seconds(31))
        await expectError(.rateLimited) { try await here.requestCode(phone: "+15550000001") }  // 5 an hour
        #expect(codes.count == 5)

        // One address asking for many numbers.
        for index in 0..<15 { _ = try await here.requestCode(phone: "+1555100\(String(format: "%04d", index))") }
        await expectError(.rateLimited) { try await here.requestCode(phone: "+15552000000") }
        // Another address is not held up.
        _ = try await world.engine.connect(address: "198.51.100.2").requestCode(phone: "+15552000000")
        // An hour later the first one may ask again.
        world.clock.advance(by: .seconds(3601))
        _ = try await here.requestCode(phone: "+15553000000")
    }

    @Test(arguments: ["5551234567", "+0123456789", "+1 555", "+1555123456789012", "+1555abc4567", "", "++15551234567"])
    func malformedNumbersAreRefused(number: String) async throws {
        let codes = CapturedCodes()
        // Refused before the store is asked: one store is enough.
        let world = try await Self.world(codes, on: .sqlite)
        await expectError(.invalidPhone) { try await world.engine.connect().requestCode(phone: number) }
        await expectError(.invalidPhone) { try await world.engine.connect().signIn(phone: number, code: "123456") }
        #expect(codes.count == 0)
    }
}
